/**
 * Client features on the wire: sampling preferences and elicitation schemas. A leaf: it imports
 * nothing, so params.ts (which builds the method params from these) forms no import cycle through
 * it. The multi round-trip types live in params.ts, next to the method params and results they
 * embed. The package's entries offer all of them through surface.ts.
 */

// ---------------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------------

export interface ModelHint {
  /** A substring to match against model names. Advisory only. */
  name?: string;
}

export interface ModelPreferences {
  /** In order of preference. */
  hints?: ModelHint[];
  /** 0..1 */
  costPriority?: number;
  /** 0..1 */
  speedPriority?: number;
  /** 0..1 */
  intelligencePriority?: number;
}

/** Since 2025-11-25. */
export interface ToolChoice {
  mode?: 'auto' | 'required' | 'none';
}

/** 'thisServer' and 'allServers' are deprecated since 2025-11-25. */
export type IncludeContext = 'none' | 'thisServer' | 'allServers';

export type StopReason = 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});

/** 2025-11-25 task augmentation: ask the receiver to run the request as a task. */
export interface TaskMetadata {
  ttl?: number;
}

// ---------------------------------------------------------------------------------------------
// Elicitation schemas (flat objects of primitive fields only)
// ---------------------------------------------------------------------------------------------

export interface StringSchema {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

export interface NumberSchema {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
}

export interface BooleanSchema {
  type: 'boolean';
  title?: string;
  description?: string;
  default?: boolean;
}

export interface EnumOption {
  const: string;
  title: string;
}

export interface UntitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
}

export interface TitledSingleSelectEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: EnumOption[];
  default?: string;
}

export interface UntitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
}

export interface TitledMultiSelectEnumSchema {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: EnumOption[] };
  default?: string[];
}

/** The 2025-06-18 form: labels in a parallel `enumNames` array. Still accepted. */
export interface LegacyTitledEnumSchema {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
}

export type SingleSelectEnumSchema = UntitledSingleSelectEnumSchema | TitledSingleSelectEnumSchema;
export type MultiSelectEnumSchema = UntitledMultiSelectEnumSchema | TitledMultiSelectEnumSchema;
export type EnumSchema = SingleSelectEnumSchema | MultiSelectEnumSchema | LegacyTitledEnumSchema;

export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

export interface ElicitRequestedSchema {
  $schema?: string;
  type: 'object';
  properties: { [name: string]: PrimitiveSchemaDefinition };
  required?: string[];
}

export type ElicitAction = 'accept' | 'decline' | 'cancel';

/** One answered field. Arrays (multi-select) are allowed since 2025-11-25. */
export type ElicitValue = string | number | boolean | string[];
