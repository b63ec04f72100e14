export {
  compileSchema,
  EMPTY_OBJECT_SCHEMA,
  type CompiledSchema,
  type CompileSchemaOptions,
  type SchemaInput,
} from './compile.js';
export type { SchemaRole, ValidationResult } from './format.js';
export { detectDialect, type JsonSchemaDialect } from './json-schema.js';
export { isStandardSchema, isStandardSchemaShape, type StandardSchemaShape } from './standard.js';
export {
  applyElicitationDefaults,
  validateElicitationSchema,
  type ElicitationBooleanSchema,
  type ElicitationEnumOption,
  type ElicitationMultiSelectSchema,
  type ElicitationNumberSchema,
  type ElicitationPrimitiveSchema,
  type ElicitationRequestedSchema,
  type ElicitationSingleSelectSchema,
  type ElicitationStringSchema,
} from './elicitation.js';
