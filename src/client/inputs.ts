import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { ClientCapabilities, Root } from '../protocol/types.js';
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, InputRequests, InputResponses } from '../protocol/params.js';
import { realSignal } from '../engine/light-signal.js';
import { applyElicitationDefaults, validateElicitationSchema } from '../schema/elicitation.js';

export type SamplingHandler = (params: CreateMessageParams, ctx: { signal: AbortSignal }) => Promise<CreateMessageResult> | CreateMessageResult;
export type ElicitationHandler = (params: ElicitParams, ctx: { signal: AbortSignal }) => Promise<ElicitResult> | ElicitResult;
/** Roots found when the server asks (a relay asks its own client), instead of a fixed list. */
export type RootsHandler = (ctx: { signal: AbortSignal }) => Promise<Root[]> | Root[];

/** Which option or setter provides each kind of input, for error messages. */
const HANDLER_OF: Record<string, string> = {
  'elicitation/create': 'an elicitation handler (the `elicitation` option or setElicitationHandler())',
  'sampling/createMessage': 'a sampling handler (the `sampling` option or setSamplingHandler())',
  'roots/list': 'roots (the `roots` option or setRoots())',
};

/**
 * What a server may ask of this client (sampling, elicitation, roots), answered the same way in
 * both eras: as server-to-client requests in the handshake era, and as the `inputRequests` of
 * an `input_required` result in 2026-07-28. One place, so both eras apply the same checks and
 * the same form defaults.
 */
export class ClientInputs {
  roots: Root[] | RootsHandler | undefined;
  sampling: SamplingHandler | undefined;
  elicitation: ElicitationHandler | undefined;

  constructor(init: { roots?: Root[] | RootsHandler; sampling?: SamplingHandler; elicitation?: ElicitationHandler }) {
    this.roots = init.roots;
    this.sampling = init.sampling;
    this.elicitation = init.elicitation;
  }

  /** The capabilities these handlers declare, on top of `extra`. */
  capabilities(extra: ClientCapabilities | undefined, elicitationUrl: boolean | undefined): ClientCapabilities {
    const caps: ClientCapabilities = { ...extra };
    if (this.roots !== undefined) caps.roots = { listChanged: true };
    if (this.sampling) caps.sampling = caps.sampling ?? {};
    if (this.elicitation) caps.elicitation = caps.elicitation ?? (elicitationUrl ? { form: {}, url: {} } : { form: {} });
    return caps;
  }

  /**
   * Answers one request of the kinds a server may send. Returns undefined when this client has
   * nothing to answer it with (the caller decides what that means in its era).
   */
  async answer(method: string, params: unknown, declared: ClientCapabilities, signal: AbortSignal): Promise<JsonObject | undefined> {
    switch (method) {
      case 'roots/list': {
        const roots = typeof this.roots === 'function' ? await this.roots({ signal }) : this.roots;
        return roots === undefined ? undefined : ({ roots } as unknown as JsonObject);
      }
      case 'sampling/createMessage':
        return this.sampling ? ((await this.sampling(params as CreateMessageParams, { signal })) as unknown as JsonObject) : undefined;
      case 'elicitation/create':
        return this.elicitation ? ((await this.elicit(params as ElicitParams, declared, signal)) as unknown as JsonObject) : undefined;
      default:
        return undefined;
    }
  }

  /**
   * Fulfils every entry of an `input_required` result, one after another (handlers often put a
   * question to a person; several forms at once would be confusing). A kind this client has no
   * handler for fails the whole call with a LocalError naming the missing handler: a server
   * should not ask for what the request did not declare, and guessing an answer would be worse.
   */
  async fulfil(requests: InputRequests, declared: ClientCapabilities, given: AbortSignal): Promise<InputResponses> {
    // The handlers get a real AbortSignal, whatever the call was given (a relay's is a LightSignal).
    const signal = realSignal(given);
    const out: InputResponses = {};
    for (const [key, req] of Object.entries(requests)) {
      if (!req || typeof req !== 'object' || typeof req.method !== 'string') {
        throw new LocalError('protocol', `The server sent an invalid input request "${key}": ${JSON.stringify(req)}`);
      }
      if (!(req.method in HANDLER_OF)) {
        throw new LocalError('protocol', `The server asked for input "${key}" of unknown kind "${req.method}"`);
      }
      let answer: JsonObject | undefined;
      try {
        answer = await untilAborted(this.answer(req.method, req.params ?? {}, declared, signal), signal, key);
      } catch (err) {
        // The handshake era sends this back as an error response; here no such answer exists.
        if (err instanceof McpError) throw new LocalError('protocol', `Cannot answer input "${key}" (${req.method}): ${err.message}`, { cause: err });
        throw err;
      }
      if (answer === undefined) {
        throw new LocalError('capability', `The server asked for input "${key}" (${req.method}), but this client has no ${HANDLER_OF[req.method]}`);
      }
      out[key] = answer as unknown as InputResponses[string];
    }
    return out;
  }

  /** Elicitation with the checks the spec asks of clients, and schema defaults filled in. */
  async elicit(params: ElicitParams, declared: ClientCapabilities, signal: AbortSignal): Promise<ElicitResult> {
    const mode = params.mode ?? 'form';
    const caps = declared.elicitation ?? {};
    // `elicitation: {}` is the 2025-06-18 spelling of "form mode only".
    const form = !!caps.form || !caps.url;
    if ((mode === 'url' && !caps.url) || (mode === 'form' && !form) || (mode !== 'url' && mode !== 'form')) {
      throw new McpError(ErrorCode.InvalidParams, `This client does not accept elicitation in ${mode} mode`);
    }
    if (mode === 'form') {
      // Only flat forms of primitives can be shown to a user; anything else is the server's error.
      const problem = validateElicitationSchema((params as { requestedSchema?: unknown }).requestedSchema);
      if (problem) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${problem}`);
    }
    const result = await this.elicitation!(params, { signal });
    if (result.action === 'accept' && mode === 'form' && 'requestedSchema' in params) {
      return { ...result, content: applyElicitationDefaults(params.requestedSchema, result.content) as ElicitResult['content'] };
    }
    return result;
  }
}

/**
 * A handler's answer, or a rejection as soon as the request is aborted. In the handshake era the
 * engine rejects the pending request on abort; here the call waits on the handler itself, so a
 * handler that ignores its signal (a dialog nobody answers) would otherwise hold a cancelled call.
 */
function untilAborted<T>(answer: Promise<T>, signal: AbortSignal, key: string): Promise<T> {
  if (signal.aborted) return Promise.reject(aborted(key));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(key));
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function aborted(key: string): LocalError {
  return new LocalError('aborted', `The request was aborted while answering the server's input request "${key}"`);
}
