// What ctx.elicit shares between the eras: a form given as a Standard Schema becomes the JSON
// Schema the client renders, and the accepted answer is checked (and typed) by that schema.
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { FinalResult } from '../protocol/types.js';
import type { ElicitFormParams, ElicitParams, ElicitResult } from '../protocol/params.js';
import { elicitationForm, validateElicitationSchema, type ElicitationForm } from '../schema/elicitation.js';
import { isStandardSchema, isStandardSchemaShape, type StandardSchemaShape } from '../schema/standard.js';

/** A form's schema given as a Standard Schema (a `z.object(...)`...) or a shape of them. */
export type ElicitSchema = StandardSchemaV1 | StandardSchemaShape;

/** A form elicitation whose `requestedSchema` is a Standard Schema or a shape of them. */
export type ElicitSchemaParams<S extends ElicitSchema> = Omit<ElicitFormParams, 'requestedSchema'> & { requestedSchema: S };

/**
 * The answer to an elicitation with a Standard Schema: when the user accepted, `content` is what
 * the schema produced from their answer (defaults applied); otherwise there is no content.
 */
export type ElicitAnswer<T> = FinalResult & ({ action: 'accept'; content: T } | { action: 'decline' | 'cancel'; content?: undefined });

/**
 * The params to send, and the form to check the answer with when the schema was a Standard
 * Schema. A form the client cannot render is the server's bug, so it fails here with a
 * TypeError rather than in the user's UI.
 */
export function formRequest(params: ElicitParams | ElicitSchemaParams<ElicitSchema>): { wire: ElicitParams; form: ElicitationForm | undefined } {
  if (params.mode === 'url') return { wire: params, form: undefined };
  const schema: unknown = params.requestedSchema;
  if (isStandardSchema(schema) || isStandardSchemaShape(schema)) {
    let form: ElicitationForm;
    try {
      form = elicitationForm(schema);
    } catch (err) {
      throw new TypeError(`Cannot elicit: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { wire: { ...params, requestedSchema: form.requestedSchema }, form };
  }
  const problem = validateElicitationSchema(schema);
  if (problem) throw new TypeError(`Cannot elicit: ${problem}`);
  return { wire: params as ElicitParams, form: undefined };
}

/** Checks accepted content with the form's schema; its output replaces what the client sent. */
export async function checkAnswer(result: ElicitResult, form: ElicitationForm): Promise<ElicitResult> {
  if (result.action !== 'accept') return result;
  // A form whose fields are all optional may come back accepted without content.
  const checked = await form.validate(result.content ?? {});
  if (!checked.ok) {
    // The validator words its message for tool arguments; this was the client's answer.
    const why = checked.message.replace(/^Invalid arguments: /, '');
    throw new McpError(ErrorCode.InvalidParams, `Client answered elicitation with invalid content: ${why}`);
  }
  return { ...result, content: checked.value as ElicitResult['content'] };
}
