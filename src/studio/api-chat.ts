// The API of the chat panel: what the chat is (model, tools, conversations, calls waiting for
// approval), a message sent and answered, a message stopped, a conversation cleared, a call
// allowed or denied, the approval and tool search settings, and a search of the tools.
import { ChatError, type StudioChat } from './chat.js';
import { StudioRequestError } from './confirm.js';
import { route, type Route } from './api-route.js';
import type { InputQueue } from './inputs.js';
import type { CreateMessageParams } from '../protocol/params.js';

export function chatRoutes(chat: StudioChat, inputs: InputQueue): Route[] {
  const run = async <T>(f: () => T | Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (err instanceof ChatError) throw new StudioRequestError(err.status, err.message);
      throw err;
    }
  };
  return [
    route('GET', '/api/chat', async () => chat.info()),
    route('POST', '/api/chat/send', (c) => run(() => chat.send(c.body.conversation, c.body.text))),
    route('POST', '/api/chat/cancel', (c) => run(() => ({ cancelled: chat.cancel(c.body.conversation) }))),
    route('POST', '/api/chat/reset', (c) =>
      run(() => {
        chat.reset(c.body.conversation);
        return { reset: true };
      }),
    ),
    route('POST', '/api/chat/approvals/([^/]+)', async (c) => {
      if (typeof c.body.allow !== 'boolean') throw new StudioRequestError(400, 'allow must be true or false');
      if (!chat.answer(c.params[0], c.body.allow)) throw new StudioRequestError(404, 'No tool call waits for approval under that id');
      return { ok: true };
    }),
    route('POST', '/api/chat/settings', (c) => run(() => chat.settings(c.body))),
    // A server's sampling request drafted by the model: the answer comes back to the page, which
    // sends it (edited or not) through /api/inputs/ID like one written by hand.
    route('POST', '/api/inputs/([^/]+)/model', (c) =>
      run(() => {
        const waiting = inputs.pending(c.params[0]);
        if (!waiting) throw new StudioRequestError(404, 'That request no longer waits for an answer');
        if (waiting.input.kind !== 'sampling') throw new StudioRequestError(400, 'Only a sampling request can be answered by the model');
        return chat.draft(waiting.input.params as unknown as CreateMessageParams, AbortSignal.any([c.signal, waiting.signal]));
      }),
    ),
    route('POST', '/api/chat/search-tools', (c) => run(() => ({ tools: chat.searchTools(c.body.query) }))),
  ];
}
