// Elicitation asks a human to fill in a form, so MCP restricts its schema to
// a flat object of primitive fields that any client can render as widgets.
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ElicitRequestedSchema } from '../protocol/client-types.js';
import { isPlainObject, type ValidationResult } from './format.js';
import { compileShape, compileStandard, isStandardSchema, shapeToJsonSchema, standardToJsonSchema, type StandardSchemaShape } from './standard.js';

interface Annotated {
  title?: string;
  description?: string;
}

export interface ElicitationStringSchema extends Annotated {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

export interface ElicitationNumberSchema extends Annotated {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

export interface ElicitationBooleanSchema extends Annotated {
  type: 'boolean';
  default?: boolean;
}

export interface ElicitationEnumOption {
  const: string;
  title: string;
}

/** Untitled (`enum`), titled (`oneOf`) or legacy titled (`enum` + `enumNames`). */
export interface ElicitationSingleSelectSchema extends Annotated {
  type: 'string';
  enum?: string[];
  enumNames?: string[];
  oneOf?: ElicitationEnumOption[];
  default?: string;
}

export interface ElicitationMultiSelectSchema extends Annotated {
  type: 'array';
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] } | { anyOf: ElicitationEnumOption[] };
  default?: string[];
}

export type ElicitationPrimitiveSchema =
  | ElicitationStringSchema
  | ElicitationNumberSchema
  | ElicitationBooleanSchema
  | ElicitationSingleSelectSchema
  | ElicitationMultiSelectSchema;

export interface ElicitationRequestedSchema {
  $schema?: string;
  type: 'object';
  properties: Record<string, ElicitationPrimitiveSchema>;
  required?: string[];
}

/**
 * Returns `content` with every missing field that declares a `default` filled
 * in (SEP-1034), without mutating either argument. A client calls this before
 * answering `accept` so servers see the values the form showed pre-selected.
 * The schema is typed loosely because it usually arrives straight off the wire.
 */
export function applyElicitationDefaults(
  requestedSchema: ElicitationRequestedSchema | Record<string, unknown>,
  content: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...content };
  const properties = (requestedSchema as { properties?: unknown }).properties;
  if (!isPlainObject(properties)) return result;
  for (const [key, property] of Object.entries(properties)) {
    if (!isPlainObject(property) || !Object.hasOwn(property, 'default')) continue;
    if (result[key] !== undefined) continue;
    const value = property.default;
    // Copied so that editing the answer cannot alter the schema's default.
    result[key] = Array.isArray(value) ? [...value] : value;
  }
  return result;
}

const ANNOTATIONS = ['title', 'description'];
const ROOT_KEYS = new Set(['$schema', 'type', 'properties', 'required', ...ANNOTATIONS]);
const STRING_KEYS = new Set(['type', 'minLength', 'maxLength', 'pattern', 'format', 'default', ...ANNOTATIONS]);
const ENUM_KEYS = new Set(['type', 'enum', 'enumNames', 'oneOf', 'default', ...ANNOTATIONS]);
const NUMBER_KEYS = new Set(['type', 'minimum', 'maximum', 'default', ...ANNOTATIONS]);
const BOOLEAN_KEYS = new Set(['type', 'default', ...ANNOTATIONS]);
const ARRAY_KEYS = new Set(['type', 'items', 'minItems', 'maxItems', 'uniqueItems', 'default', ...ANNOTATIONS]);
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((item) => typeof item === 'string');

function unsupportedKey(schema: Record<string, unknown>, allowed: ReadonlySet<string>): string | undefined {
  return Object.keys(schema).find((key) => !allowed.has(key));
}

function checkAnnotations(schema: Record<string, unknown>, where: string): string | undefined {
  for (const key of ANNOTATIONS) {
    if (schema[key] !== undefined && typeof schema[key] !== 'string') return `${where} "${key}" must be a string.`;
  }
  return undefined;
}

function checkBounds(schema: Record<string, unknown>, low: string, high: string, where: string, count: boolean): string | undefined {
  for (const key of [low, high]) {
    const value = schema[key];
    if (value === undefined) continue;
    const valid = count ? isCount(value) : typeof value === 'number' && Number.isFinite(value);
    if (!valid) return `${where} "${key}" must be ${count ? 'a non-negative integer' : 'a finite number'}.`;
  }
  if (typeof schema[low] === 'number' && typeof schema[high] === 'number' && schema[low] > schema[high]) {
    return `${where} has "${low}" greater than "${high}".`;
  }
  return undefined;
}

// Returns the allowed option values, or an error sentence.
function enumOptions(values: unknown, titled: boolean, where: string): string[] | string {
  const keyword = titled ? (where.endsWith('items') ? 'anyOf' : 'oneOf') : 'enum';
  if (!Array.isArray(values) || values.length === 0) return `${where} "${keyword}" must be a non-empty array.`;
  if (!titled) return isStringArray(values) ? values : `${where} "enum" must contain only strings.`;
  const options: string[] = [];
  for (const option of values) {
    if (!isPlainObject(option) || typeof option.const !== 'string' || typeof option.title !== 'string') {
      return `${where} "${keyword}" entries must be { "const": string, "title": string }.`;
    }
    options.push(option.const);
  }
  return options;
}

function checkString(schema: Record<string, unknown>, where: string): string | undefined {
  const isEnum = schema.enum !== undefined || schema.oneOf !== undefined;
  const extra = unsupportedKey(schema, isEnum ? ENUM_KEYS : STRING_KEYS);
  if (extra) return `${where} uses unsupported keyword "${extra}".`;
  if (!isEnum) {
    if (schema.format !== undefined && !FORMATS.has(schema.format as string)) {
      return `${where} "format" must be one of email, uri, date, date-time.`;
    }
    if (schema.pattern !== undefined) {
      if (typeof schema.pattern !== 'string') return `${where} "pattern" must be a string.`;
      try {
        new RegExp(schema.pattern, 'u');
      } catch {
        return `${where} "pattern" must be a valid regular expression.`;
      }
    }
    if (schema.default !== undefined && typeof schema.default !== 'string') return `${where} "default" must be a string.`;
    return checkBounds(schema, 'minLength', 'maxLength', where, true);
  }
  if (schema.enum !== undefined && schema.oneOf !== undefined) return `${where} must use either "enum" or "oneOf", not both.`;
  const options = enumOptions(schema.oneOf ?? schema.enum, schema.oneOf !== undefined, where);
  if (typeof options === 'string') return options;
  if (schema.enumNames !== undefined) {
    if (schema.enum === undefined) return `${where} "enumNames" is only allowed with "enum".`;
    if (!isStringArray(schema.enumNames) || schema.enumNames.length !== options.length) {
      return `${where} "enumNames" must be strings, one per "enum" value.`;
    }
  }
  if (schema.default !== undefined && !options.includes(schema.default as string)) {
    return `${where} "default" must be one of its options.`;
  }
  return undefined;
}

function checkNumber(schema: Record<string, unknown>, where: string): string | undefined {
  const extra = unsupportedKey(schema, NUMBER_KEYS);
  if (extra) return `${where} uses unsupported keyword "${extra}".`;
  const bad = checkBounds(schema, 'minimum', 'maximum', where, false);
  if (bad) return bad;
  const value = schema.default;
  if (value === undefined) return undefined;
  const integer = schema.type === 'integer';
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    return `${where} "default" must be ${integer ? 'an integer' : 'a number'}.`;
  }
  return undefined;
}

function checkMultiSelect(schema: Record<string, unknown>, where: string): string | undefined {
  const extra = unsupportedKey(schema, ARRAY_KEYS);
  if (extra) return `${where} uses unsupported keyword "${extra}".`;
  const items = schema.items;
  const itemsWhere = `${where} items`;
  if (!isPlainObject(items)) return `${where} is an array, so it must be a multi-select with "items" holding "enum" or "anyOf".`;
  const titled = items.anyOf !== undefined;
  const allowedItemKeys = new Set(titled ? ['anyOf'] : ['type', 'enum']);
  const itemExtra = unsupportedKey(items, allowedItemKeys);
  if (itemExtra) return `${itemsWhere} use unsupported keyword "${itemExtra}"; only string "enum" or "anyOf" options are allowed.`;
  if (!titled && items.type !== undefined && items.type !== 'string') return `${itemsWhere} must be of type "string".`;
  const options = enumOptions(titled ? items.anyOf : items.enum, titled, itemsWhere);
  if (typeof options === 'string') return options;
  const bad = checkBounds(schema, 'minItems', 'maxItems', where, true);
  if (bad) return bad;
  const value = schema.default;
  if (value !== undefined && !(isStringArray(value) && value.every((v) => options.includes(v)))) {
    return `${where} "default" must be an array of its options.`;
  }
  return undefined;
}

function checkProperty(name: string, schema: unknown): string | undefined {
  const where = `Property "${name}"`;
  if (!isPlainObject(schema)) return `${where} must be a schema object.`;
  const annotations = checkAnnotations(schema, where);
  if (annotations) return annotations;
  switch (schema.type) {
    case 'string':
      return checkString(schema, where);
    case 'number':
    case 'integer':
      return checkNumber(schema, where);
    case 'boolean': {
      const extra = unsupportedKey(schema, BOOLEAN_KEYS);
      if (extra) return `${where} uses unsupported keyword "${extra}".`;
      if (schema.default !== undefined && typeof schema.default !== 'boolean') return `${where} "default" must be a boolean.`;
      return undefined;
    }
    case 'array':
      return checkMultiSelect(schema, where);
    default:
      return (
        `${where} must be a primitive field (type string, number, integer or boolean, ` +
        `a single-select enum or a multi-select array); got ${schema.type === undefined ? 'no type' : `type ${JSON.stringify(schema.type)}`}.`
      );
  }
}

/**
 * Returns a sentence describing the first reason `schema` is not a valid MCP
 * elicitation `requestedSchema`, or `undefined` when it is valid. Meant to be
 * run before sending so a bad form fails on the server, not in the client UI.
 */
export function validateElicitationSchema(schema: unknown): string | undefined {
  if (!isPlainObject(schema)) return 'Elicitation schema must be a JSON Schema object.';
  if (schema.type !== 'object') return 'Elicitation schema must have type "object".';
  const extra = unsupportedKey(schema, ROOT_KEYS);
  if (extra) return `Elicitation schema must be a flat object; top-level keyword "${extra}" is not supported.`;
  const annotations = checkAnnotations(schema, 'Elicitation schema');
  if (annotations) return annotations;
  const properties = schema.properties;
  if (!isPlainObject(properties)) return 'Elicitation schema must have a "properties" object.';
  for (const [name, property] of Object.entries(properties)) {
    const problem = checkProperty(name, property);
    if (problem) return problem;
  }
  const required = schema.required;
  if (required !== undefined) {
    if (!isStringArray(required)) return 'Elicitation schema "required" must be an array of property names.';
    const unknown = required.find((name) => !Object.hasOwn(properties, name));
    if (unknown !== undefined) return `Elicitation schema requires "${unknown}", which is not in "properties".`;
  }
  return undefined;
}

/** A form built from a Standard Schema: what to send, and how to check the answer. */
export interface ElicitationForm {
  readonly requestedSchema: ElicitRequestedSchema;
  /** Checks accepted content and returns the schema's output value (defaults applied). */
  readonly validate: (content: unknown) => ValidationResult | Promise<ValidationResult>;
}

// Converting runs the library's JSON Schema generator; a handler asks the same form every call.
const forms = new WeakMap<object, ElicitationForm>();

/**
 * The elicitation form of a Standard Schema (or a shape of them): the JSON Schema of what it
 * accepts (the user fills in its input). Throws a TypeError naming the first field a client
 * could not render when that is not a flat object of primitive fields.
 */
export function elicitationForm(schema: StandardSchemaV1 | StandardSchemaShape): ElicitationForm {
  const cached = forms.get(schema);
  if (cached) return cached;
  const standard = isStandardSchema(schema);
  const remedy = 'a form holds only string, number, integer, boolean and enum fields';
  const jsonSchema = standard ? standardToJsonSchema(schema, 'input', remedy) : shapeToJsonSchema(schema, 'input', remedy);
  const problem = validateElicitationSchema(jsonSchema);
  if (problem) throw new TypeError(problem);
  const form: ElicitationForm = {
    requestedSchema: jsonSchema as unknown as ElicitRequestedSchema,
    validate: standard ? compileStandard(schema, 'input') : compileShape(schema, 'input'),
  };
  forms.set(schema, form);
  return form;
}
