// The Chat Completions side of the scripted endpoints (see llm.ts): chunks as OpenAI streams
// them (a role delta, content deltas, tool call deltas keyed by index with the id and name first
// and the arguments in fragments, a finish chunk, a usage chunk when asked, `[DONE]`), or one
// `chat.completion` object when the request did not ask for a stream.
import type { ServerResponse } from 'node:http';
import { pieces, type TurnReply, writeSplit } from './llm-wire.js';

type Answer = Extract<TurnReply, { kind: 'answer' }>;

const argumentsText = (args: Record<string, unknown> | string | undefined) => (typeof args === 'string' ? args : JSON.stringify(args ?? {}));

function callsOf(reply: Answer, turn: number) {
  return (reply.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${turn}_${i}`, name: c.name, arguments: argumentsText(c.arguments) }));
}

function finishReason(reply: Answer): string {
  return reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

function usageOf(reply: Answer, body: { messages?: unknown[] }) {
  const u = reply.usage ?? { input: JSON.stringify(body.messages ?? []).length, output: (reply.text ?? '').length };
  return { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output };
}

export function writeOpenAIReply(res: ServerResponse, reply: Exclude<TurnReply, { kind: 'error' }>, body: any, turn: number, stream: boolean): void {
  const id = `chatcmpl-scripted-${turn}`;
  const model = (reply.kind === 'answer' ? reply.model : undefined) ?? String(body.model ?? 'scripted');
  const created = 1_700_000_000 + turn;
  const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: choice ? [{ index: 0, logprobs: null, finish_reason: null, ...choice }] : [], ...extra })}\n\n`;

  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (reply.kind === 'hang') return; // headers only, until the client leaves
    if (reply.kind === 'malformed') return void res.end(reply.raw);
    if (reply.kind === 'truncated') return void res.end('{"id":"chatcmpl-cut","choices":[{"mess');
    if (reply.kind === 'stream-error') return void res.end(JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'server_error' } }));
    const calls = callsOf(reply, turn);
    const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? (calls.length > 0 ? null : '') };
    if (calls.length > 0) message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
        usage: usageOf(reply, body),
      }),
    );
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const size = reply.kind === 'answer' ? (reply.chunkSize ?? 3) : 3;
  writeSplit(res, chunk({ delta: { role: 'assistant', content: '' } }));
  for (const piece of reply.text ? pieces(reply.text, size) : []) writeSplit(res, chunk({ delta: { content: piece } }));
  switch (reply.kind) {
    case 'hang':
      return;
    case 'malformed':
      res.end(`data: ${reply.raw}\n\n`);
      return;
    case 'truncated':
      res.end();
      return;
    case 'stream-error':
      res.end(`data: ${JSON.stringify({ error: { message: reply.message, type: reply.type ?? 'server_error' } })}\n\n`);
      return;
  }
  const calls = callsOf(reply, turn);
  // First delta of each call: index, id, type, name and empty arguments; then the fragments.
  const fragments = calls.map((c, index) => pieces(c.arguments, size).map((a) => ({ index, function: { arguments: a } })));
  const heads = calls.map((c, index) => ({ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }));
  if (reply.interleave) {
    for (const head of heads) writeSplit(res, chunk({ delta: { tool_calls: [head] } }));
    for (let round = 0; fragments.some((f) => round < f.length); round++) {
      for (const f of fragments) if (round < f.length) writeSplit(res, chunk({ delta: { tool_calls: [f[round]] } }));
    }
  } else {
    heads.forEach((head, i) => {
      writeSplit(res, chunk({ delta: { tool_calls: [head] } }));
      for (const f of fragments[i]) writeSplit(res, chunk({ delta: { tool_calls: [f] } }));
    });
  }
  writeSplit(res, chunk({ delta: {}, finish_reason: finishReason(reply) }));
  if (body.stream_options?.include_usage === true) writeSplit(res, chunk(undefined, { usage: usageOf(reply, body) }));
  res.end('data: [DONE]\n\n');
}
