// The deprecated HTTP+SSE transport (2024-11-05): a GET stream whose first event names where to
// POST. Still served by older servers; mcpkit clients fall back to it, so the doctor walks it too.
import { SseClientTransport } from '../../transports/http/client/sse-legacy.js';
import { exchange } from './http-post.js';
import { initializeParams, initializeStep, listMethod, listStep, type Settled } from './protocol.js';
import { TransportWire, type WireReply } from './wire.js';
import { duration, type Walk } from './walk.js';

/** Whether a GET to the URL opens an HTTP+SSE stream that names its POST endpoint. */
export async function trySse(walk: Walk, url: URL, headers: Record<string, string>): Promise<boolean> {
  const r = await exchange(walk, {
    method: 'GET',
    url,
    headers: { ...headers, accept: 'text/event-stream' },
    timeoutMs: Math.min(walk.ctx.slowMs, walk.ctx.timeoutMs),
  });
  return r.kind === 'answered' && r.status === 200 && r.type === 'text/event-stream' && /event: endpoint/.test(r.text);
}

function reply(walk: Walk, r: WireReply | 'timeout' | 'aborted', method: string, since: number) {
  if (r === 'timeout' || r === 'aborted') {
    return {
      kind: 'failed' as const,
      code: 'no-answer' as const,
      detail: `no answer to ${method} on the event stream within ${duration(walk.ctx.timeoutMs)}`,
      fix: 'the server took the POST but never answered on its stream: check its log',
    };
  }
  if (r.kind === 'closed')
    return {
      kind: 'failed' as const,
      code: 'unreachable' as const,
      detail: `the event stream closed before ${method} was answered`,
      fix: 'the server dropped the stream: check its log',
    };
  return r.kind === 'result' ? { kind: 'result' as const, result: r.result, ms: r.at - since } : { kind: 'error' as const, error: r.error, ms: r.at - since };
}

/** initialize and the first list call over HTTP+SSE. */
export async function sseWalk(walk: Walk, url: URL, headers: Record<string, string>, since: number): Promise<Settled | undefined> {
  const { ctx } = walk;
  const fetchWithOrigin: typeof fetch = (input, init) => {
    const h = new Headers(init?.headers);
    if (ctx.origin) h.set('origin', ctx.origin);
    return ctx.fetch(input, { ...init, headers: h });
  };
  const transport = new SseClientTransport({ url, headers, fetch: fetchWithOrigin, endpointTimeoutMs: ctx.timeoutMs });
  const wire = new TransportWire(transport, ctx.clock);
  try {
    const started = await walk.wait(
      transport.start().then(
        () => 'ok' as const,
        (e: Error) => e,
      ),
      ctx.timeoutMs,
    );
    if (started !== 'ok') {
      const why = started === 'timeout' || started === 'aborted' ? `no "endpoint" event within ${duration(ctx.timeoutMs)}` : started.message;
      walk.fail(
        'post',
        since,
        'no-answer',
        `the URL opens an event stream but the HTTP+SSE transport could not start: ${why}`,
        'an HTTP+SSE server sends an "endpoint" event first, naming where to POST',
      );
      return undefined;
    }
    walk.pass(
      'post',
      since,
      `an HTTP+SSE endpoint (the 2024-11-05 transport, deprecated since 2025-03-26); messages are POSTed to ${transport.endpoint?.pathname ?? '?'}`,
    );
    walk.pass('discover', since, 'HTTP+SSE predates the 2026-07-28 era: initialize follows');
    const iSince = walk.now();
    const i = reply(walk, await walk.wait(wire.request('initialize', initializeParams()), ctx.timeoutMs), 'initialize', iSince);
    if (i.kind === 'failed') {
      walk.fail('initialize', iSince, i.code, i.detail, i.fix);
      return undefined;
    }
    const settled = initializeStep(walk, iSince, i);
    if (!settled) return undefined;
    wire.notify('notifications/initialized');
    const list = listMethod(settled.capabilities);
    const lSince = walk.now();
    if (!list) walk.pass('list', lSince, 'the server declares no tools, resources or prompts: nothing to list');
    else listStep(walk, lSince, list, reply(walk, await walk.wait(wire.request(list.method, {}), ctx.timeoutMs), list.method, lSince));
    return settled;
  } finally {
    await transport.close().catch(() => {});
  }
}
