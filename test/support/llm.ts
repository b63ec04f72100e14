// Scripted model endpoints for tests: real node:http servers on 127.0.0.1 speaking the real wire
// formats of OpenAI Chat Completions (`POST /v1/chat/completions`) and the Anthropic Messages API
// (`POST /v1/messages`), streamed (SSE cut into many small deltas, each event written in two
// pieces so readers see split lines) or as one JSON answer when the request says `stream: false`.
//
// A script is a list of turns, one per request, in order. A turn is a reply, or a function that
// receives the request (parsed body, headers) and returns the reply, so a test can check what the
// model was sent (the tools as functions, a tool message with the right tool_call_id) right where
// it scripts the answer:
//
//   const llm = await startScriptedOpenAI([
//     (req) => {
//       assert.equal(req.body.tools[0].function.name, 'echo');
//       return toolCallsTurn({ name: 'echo', arguments: { text: 'hi' } });
//     },
//     (req) => {
//       assert.equal(req.body.messages.at(-1).tool_call_id, 'call_1_0');
//       return textTurn('done');
//     },
//   ]);
//   const provider = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'scripted' });
//   ...
//   llm.assertNoErrors(); // a turn function that threw (a failed assert) is reported here
//   await llm.close();
//
// A turn that throws makes the server answer 400 with "scripted turn N failed: <message>" (a 4xx,
// so providers do not retry it into the next turn); the error is kept in `llm.errors`. A request
// beyond the script is answered 400 "script exhausted". Every request is kept in `llm.requests`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeAnthropicReply } from './llm-anthropic.js';
import { writeOpenAIReply } from './llm-openai.js';
import type { Flavor, ScriptedRequest, ScriptedToolCall, TurnReply } from './llm-wire.js';

export type { ScriptedRequest, ScriptedToolCall, TurnReply } from './llm-wire.js';

export type Turn = TurnReply | ((request: ScriptedRequest) => TurnReply | Promise<TurnReply>);

/** A text answer (the turn ends, `stop` / `end_turn`). */
export function textTurn(text: string, options: Omit<Extract<TurnReply, { kind: 'answer' }>, 'kind' | 'text' | 'toolCalls'> = {}): TurnReply {
  return { kind: 'answer', text, ...options };
}

/** One or several tool calls (several = parallel), optionally after some text. */
export function toolCallsTurn(
  calls: ScriptedToolCall | ScriptedToolCall[],
  options: Omit<Extract<TurnReply, { kind: 'answer' }>, 'kind' | 'toolCalls'> = {},
): TurnReply {
  return { kind: 'answer', toolCalls: Array.isArray(calls) ? calls : [calls], ...options };
}

/** An HTTP error answer, e.g. `errorTurn(429, 'slow down', { headers: { 'retry-after': '2' } })`. */
export function errorTurn(
  status: number,
  message = `scripted error ${status}`,
  options: { headers?: Record<string, string>; body?: unknown; param?: string } = {},
): TurnReply {
  return { kind: 'error', status, message, ...options };
}

/** A stream that breaks: `text` then a line that is not JSON. */
export function malformedTurn(raw = '{not json', text = 'partial'): TurnReply {
  return { kind: 'malformed', raw, text };
}

/** A stream cut off before the turn finished. */
export function truncatedTurn(text = 'partial'): TurnReply {
  return { kind: 'truncated', text };
}

/** An error reported inside the stream after `text`. */
export function streamErrorTurn(message: string, options: { text?: string; type?: string } = {}): TurnReply {
  return { kind: 'stream-error', message, ...options };
}

/** A model that starts answering (`text`) and then never finishes until the client aborts. */
export function hangTurn(text = ''): TurnReply {
  return { kind: 'hang', text };
}

export interface ScriptedLlmOptions {
  /** Requests must carry this key (`Authorization: Bearer` / `x-api-key`), else 401. */
  apiKey?: string;
}

export interface ScriptedLlm {
  /** OpenAI: `http://127.0.0.1:PORT/v1`; Anthropic: `http://127.0.0.1:PORT` (what each provider's `baseUrl` takes). */
  readonly baseUrl: string;
  readonly port: number;
  /** Every request received, in order (including refused and exhausted ones). */
  readonly requests: ScriptedRequest[];
  /** Errors thrown by turn functions (failed assertions), in order. */
  readonly errors: Error[];
  /** Turns not yet used. */
  remaining(): number;
  /** How many responses the client abandoned before they ended (an abort mid-stream). */
  readonly disconnected: number;
  /** Resolves when the client has abandoned `count` responses in total. */
  waitForDisconnect(count?: number): Promise<void>;
  /** Throws the first error a turn function threw. */
  assertNoErrors(): void;
  /** Adds turns to the script. */
  push(...turns: Turn[]): void;
  close(): Promise<void>;
}

function errorBody(flavor: Flavor, status: number, message: string, param?: string): unknown {
  if (flavor === 'anthropic') {
    const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: param ?? null, code: null } };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function start(flavor: Flavor, script: Turn[], options: ScriptedLlmOptions): Promise<ScriptedLlm> {
  const turns = [...script];
  const requests: ScriptedRequest[] = [];
  const errors: Error[] = [];
  let next = 0;
  let disconnected = 0;
  const disconnectWaiters: Array<{ count: number; resolve: () => void }> = [];
  const path = flavor === 'openai' ? '/v1/chat/completions' : '/v1/messages';

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const request: ScriptedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, turn: -1 };
    requests.push(request);
    if (req.method !== 'POST' || req.url !== path)
      return sendJson(res, 404, errorBody(flavor, 404, `no route ${req.method} ${req.url} (this scripted endpoint serves POST ${path})`));
    if (options.apiKey !== undefined) {
      const given = flavor === 'openai' ? req.headers.authorization : req.headers['x-api-key'];
      const expected = flavor === 'openai' ? `Bearer ${options.apiKey}` : options.apiKey;
      if (given !== expected) return sendJson(res, 401, errorBody(flavor, 401, 'Incorrect API key provided'));
    }
    if (typeof body !== 'object' || body === null) return sendJson(res, 400, errorBody(flavor, 400, 'the body is not JSON'));
    if (next >= turns.length)
      return sendJson(res, 400, errorBody(flavor, 400, `script exhausted: request ${requests.length} has no turn (${turns.length} scripted)`));
    request.turn = next;
    const turn = turns[next++];
    let reply: TurnReply;
    try {
      reply = typeof turn === 'function' ? await turn(request) : turn;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      errors.push(error);
      return sendJson(res, 400, errorBody(flavor, 400, `scripted turn ${request.turn} failed: ${error.message}`));
    }
    if (reply.kind === 'error') {
      return sendJson(res, reply.status, reply.body ?? errorBody(flavor, reply.status, reply.message ?? `error ${reply.status}`, reply.param), reply.headers);
    }
    // A response the client abandons before it ended is a disconnect (abort mid-stream).
    res.on('close', () => {
      if (res.writableFinished) return;
      disconnected++;
      for (const w of disconnectWaiters.splice(0)) {
        if (disconnected >= w.count) w.resolve();
        else disconnectWaiters.push(w);
      }
    });
    const stream = body.stream === true;
    if (flavor === 'openai') writeOpenAIReply(res, reply, body, request.turn, stream);
    else writeAnthropicReply(res, reply, body, request.turn, stream);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(flavor, 500, `scripted endpoint crashed: ${String(err)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: flavor === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    port,
    requests,
    errors,
    remaining: () => turns.length - next,
    get disconnected() {
      return disconnected;
    },
    waitForDisconnect(count = 1) {
      if (disconnected >= count) return Promise.resolve();
      return new Promise<void>((resolve) => disconnectWaiters.push({ count, resolve }));
    },
    assertNoErrors() {
      if (errors.length > 0) throw errors[0];
    },
    push(...more) {
      turns.push(...more);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A scripted OpenAI-compatible endpoint (`POST /v1/chat/completions`). */
export function startScriptedOpenAI(script: Turn[], options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  return start('openai', script, options);
}

/** A scripted Anthropic Messages endpoint (`POST /v1/messages`). */
export function startScriptedAnthropic(script: Turn[], options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  return start('anthropic', script, options);
}
