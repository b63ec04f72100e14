// The Anthropic Messages side of the scripted endpoints (see llm.ts): named SSE events as the API
// streams them (message_start, ping, content_block_start / content_block_delta (text_delta,
// input_json_delta) / content_block_stop per block, message_delta with the stop reason and
// output usage, message_stop), or one `message` object when the request did not ask for a stream.
import type { ServerResponse } from 'node:http';
import { pieces, type TurnReply, writeSplit } from './llm-wire.js';

type Answer = Extract<TurnReply, { kind: 'answer' }>;

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

function callsOf(reply: Answer, turn: number) {
  return (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `toolu_${turn}_${i}`,
    name: c.name,
    json: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
}

function usageOf(reply: Answer, body: { messages?: unknown[] }) {
  return reply.usage ?? { input: JSON.stringify(body.messages ?? []).length, output: (reply.text ?? '').length };
}

export function writeAnthropicReply(res: ServerResponse, reply: Exclude<TurnReply, { kind: 'error' }>, body: any, turn: number, stream: boolean): void {
  const id = `msg_scripted_${turn}`;
  const model = (reply.kind === 'answer' ? reply.model : undefined) ?? String(body.model ?? 'scripted');
  const stopReason = (r: Answer) => r.stopReason ?? ((r.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');

  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (reply.kind === 'hang') return;
    if (reply.kind === 'malformed') return void res.end(reply.raw);
    if (reply.kind === 'truncated') return void res.end('{"id":"msg_cut","content":[{"ty');
    if (reply.kind === 'stream-error')
      return void res.end(JSON.stringify({ type: 'error', error: { type: reply.type ?? 'api_error', message: reply.message } }));
    const content: unknown[] = [...(reply.blocks ?? [])];
    if (reply.text) content.push({ type: 'text', text: reply.text });
    for (const c of callsOf(reply, turn)) content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.json) });
    const u = usageOf(reply, body);
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stopReason(reply),
        stop_sequence: null,
        usage: { input_tokens: u.input, output_tokens: u.output },
      }),
    );
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const input = reply.kind === 'answer' ? usageOf(reply, body).input : 1;
  writeSplit(
    res,
    event('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: 1 },
      },
    }),
  );
  writeSplit(res, event('ping', { type: 'ping' }));
  const size = reply.kind === 'answer' ? (reply.chunkSize ?? 3) : 3;
  let index = 0;
  for (const block of reply.kind === 'answer' ? (reply.blocks ?? []) : []) {
    if (block.type === 'server_tool_use') {
      writeSplit(res, event('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      for (const piece of pieces(JSON.stringify(block.input ?? {}), size)) {
        writeSplit(res, event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
      }
    } else {
      writeSplit(res, event('content_block_start', { type: 'content_block_start', index, content_block: block }));
    }
    writeSplit(res, event('content_block_stop', { type: 'content_block_stop', index: index++ }));
  }
  if (reply.text) {
    writeSplit(res, event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const piece of pieces(reply.text, size)) {
      writeSplit(res, event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }));
    }
    // The failure kinds break off inside the text block.
    if (reply.kind === 'answer') writeSplit(res, event('content_block_stop', { type: 'content_block_stop', index: index++ }));
  }
  switch (reply.kind) {
    case 'hang':
      return;
    case 'malformed':
      res.end(`event: content_block_delta\ndata: ${reply.raw}\n\n`);
      return;
    case 'truncated':
      res.end();
      return;
    case 'stream-error':
      res.end(event('error', { type: 'error', error: { type: reply.type ?? 'overloaded_error', message: reply.message } }));
      return;
  }
  for (const c of callsOf(reply, turn)) {
    writeSplit(
      res,
      event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }),
    );
    for (const piece of pieces(c.json, size)) {
      writeSplit(res, event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    writeSplit(res, event('content_block_stop', { type: 'content_block_stop', index: index++ }));
  }
  const u = usageOf(reply, body);
  writeSplit(
    res,
    event('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage: { output_tokens: u.output } }),
  );
  res.end(event('message_stop', { type: 'message_stop' }));
}
