// `mcpkit serve` exporting over OTLP as the OTEL_* variables say, to a tiny OTLP/HTTP receiver
// in this test: the spans of a tools/call carry the trace id the client sent in
// `_meta.traceparent`, the metrics arrive, and --log-format json lines carry the same ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '../../src/client/client.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { deferred, startScriptedOpenAI, tempDir, textTurn, toolCallsTurn, waitFor, within, patient } from '../support/index.js';
import { CLI, CLI_LINE, cleanEnv, mcpkit, mcpkitProcess, ROOT } from './helpers.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP endpoint taking http/json: every span and metric name it was sent. */
async function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const metrics = new Set<string>();
  const services = new Set<string>();
  const waiters: (() => void)[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const c of req) body += c;
    assert.equal(req.headers['content-type'], 'application/json', 'http/json was asked for');
    const data = JSON.parse(body) as Record<
      string,
      {
        resource?: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans?: { spans: OtlpSpan[] }[];
        scopeMetrics?: { metrics: { name: string }[] }[];
      }[]
    >;
    for (const rs of data.resourceSpans ?? []) {
      for (const a of rs.resource?.attributes ?? []) if (a.key === 'service.name' && a.value.stringValue) services.add(a.value.stringValue);
      for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
    }
    for (const rm of data.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics) metrics.add(m.name);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const until = async (what: string, ok: () => boolean) => {
    while (!ok()) {
      const d = deferred<void>();
      waiters.push(d.resolve);
      await within(d.promise, what, patient(30_000));
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metrics,
    services,
    until,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** `mcpkit serve ARGS` (or another command) as a real process; resolves once its JSON log says where it listens. */
async function serveJson(args: string[], env: NodeJS.ProcessEnv, command = 'serve') {
  const child = spawn(process.execPath, [...CLI, command, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let err = '';
  const listening = deferred<string>();
  const ended = new Promise<void>((r) => child.once('exit', () => r()));
  child.stderr.on('data', (c: Buffer) => {
    err += c;
    let nl = err.indexOf('\n');
    while (nl >= 0) {
      const line = err.slice(0, nl);
      err = err.slice(nl + 1);
      nl = err.indexOf('\n');
      const entry = JSON.parse(line) as Record<string, unknown>; // every stderr line is JSON
      lines.push(entry);
      if (entry.msg === 'listening') listening.resolve(entry.url as string);
    }
  });
  void ended.then(() => listening.reject(new Error(`mcpkit ${command} exited: ${err}`)));
  const url = await within(listening.promise, `mcpkit ${command} to listen`, patient(30_000));
  return {
    url,
    lines,
    stop: async () => {
      child.kill('SIGTERM');
      await within(ended, `mcpkit ${command} to stop (and flush its telemetry)`, patient(30_000));
    },
  };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

for (const era of ['modern', 'handshake'] as const) {
  test(`serve exports the spans of a tools/call over OTLP http/json, in the client's trace (${era})`, async () => {
    const receiver = await otlpReceiver();
    const env = cleanEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'weather-under-test',
      // Export soon rather than every 5 s / 60 s; the test waits on what arrives, not on time.
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    });
    const served = await serveJson(['--port', '0', '--log-format', 'json'], env);
    const client = new McpClient({ name: 'otel-test', version: '1.0.0', era });
    try {
      await client.connect(new StreamableHttpClientTransport({ url: served.url }));
      const result = await client.request('tools/call', {
        name: 'echo',
        arguments: { message: 'five' },
        _meta: { traceparent: `00-${TRACE_ID}-${PARENT}-01` },
      });
      assert.deepEqual((result as { content: unknown[] }).content, [{ type: 'text', text: 'five' }]);
      await receiver.until('the tools/call span', () => receiver.spans.some((s) => s.name === 'tools/call echo'));
      const span = receiver.spans.find((s) => s.name === 'tools/call echo')!;
      assert.equal(span.traceId, TRACE_ID, 'the trace the client sent in _meta.traceparent');
      assert.equal(span.parentSpanId, PARENT);
      assert.equal(span.kind, 2, 'SERVER');
      const attrs = Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
      assert.equal(attrs['mcp.method.name'], 'tools/call');
      assert.equal(attrs['gen_ai.tool.name'], 'echo');
      assert.ok(receiver.services.has('weather-under-test'), 'OTEL_SERVICE_NAME names the service');
      await receiver.until('the operation-duration metric', () => receiver.metrics.has('mcp.server.operation.duration'));
      // The request's log line names the same trace and the exported span.
      const line = await waitFor(() => served.lines.find((l) => l.msg === 'request' && l.method === 'tools/call'), 'a JSON log line for the tools/call');
      assert.equal(line.target, 'echo');
      assert.equal(line.outcome, 'ok');
      assert.equal(line.trace_id, TRACE_ID);
      assert.equal(line.span_id, span.spanId);
    } finally {
      await client.close();
      await served.stop();
      await receiver.close();
    }
  });
}

test('--log-format json without telemetry: the trace id comes from the request, errors are lines too', async () => {
  const served = await serveJson(['--port', '0', '--log-format', 'json'], cleanEnv());
  const client = new McpClient({ name: 'log-test', version: '1.0.0', era: 'modern' });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: served.url }));
    await client.request('tools/call', { name: 'echo', arguments: { message: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT}-01` } });
    await assert.rejects(client.request('prompts/get', { name: 'no-such-prompt' }));
    // A request's line is written as it ends, on another pipe than its answer: waited for, not assumed there.
    const lineOf = (method: string) => waitFor(() => served.lines.find((l) => l.msg === 'request' && l.method === method), `the log line of ${method}`);
    const call = await lineOf('tools/call');
    assert.equal(call?.trace_id, TRACE_ID);
    assert.equal(call?.parent_span_id, PARENT);
    const failed = await lineOf('prompts/get');
    assert.equal(failed?.outcome, 'error');
    assert.equal(failed?.level, 'warn');
    assert.equal(typeof failed?.code, 'number');
    for (const l of served.lines) assert.ok(typeof l.time === 'string' && typeof l.level === 'string', 'every line has time and level');
  } finally {
    await client.close();
    await served.stop();
  }
});

test('--log-format takes text or json only', async () => {
  const run = await mcpkit(['serve', '--log-format', 'xml']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--log-format: "xml" is not a format; use text or json/);
});

test('bridge --stdio-to-http and serve export one trace: the bridge CLIENT span is the parent of the SERVER span', async () => {
  const receiver = await otlpReceiver();
  const otlp = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
  };
  const served = await serveJson(['--port', '0', '--log-format', 'json'], cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-server' }));
  const env = cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-bridge' });
  const client = new McpClient({ name: 'host', version: '1.0.0', era: 'handshake' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI, 'bridge', '--stdio-to-http', served.url, '--no-oauth'],
        env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    await client.callTool('echo', { message: 'through the bridge' });
    await client.close();
    const pair = () => {
      const server = receiver.spans.find((s) => s.name === 'tools/call echo' && s.kind === 2);
      const bridge = receiver.spans.find((s) => s.name === 'tools/call echo' && s.kind === 3);
      return server && bridge ? { server, bridge } : undefined;
    };
    await receiver.until('the bridge and server spans of the call', () => pair() !== undefined);
    const { server, bridge } = pair()!;
    assert.equal(server.traceId, bridge.traceId, 'one trace across the bridge and the server');
    assert.equal(server.parentSpanId, bridge.spanId, "the server span's parent is the bridge's client span");
    assert.ok(receiver.services.has('the-bridge') && receiver.services.has('the-server'));
  } finally {
    await client.close();
    await served.stop();
    await receiver.close();
  }
});

test('chat and serve export one trace: the message, the model turns, the tool call, the client and server spans', async () => {
  const receiver = await otlpReceiver();
  const otlp = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
  };
  const served = await serveJson(['--port', '0', '--log-format', 'json'], cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-server' }));
  const llm = await startScriptedOpenAI([toolCallsTurn({ name: 'echo', arguments: { message: 'five' } }), textTurn('It said five.')]);
  try {
    const child = spawn(
      process.execPath,
      [...CLI, 'chat', '--base-url', llm.baseUrl, '--model', 'scripted', '--server', served.url, '--yes', '-p', 'echo five'],
      {
        cwd: ROOT,
        env: cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-chat' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    const code = await within(new Promise<number | null>((r) => child.once('exit', r)), 'mcpkit chat to answer and exit', 60_000);
    assert.equal(code, 0, err);
    assert.match(out, /It said five\./);
    llm.assertNoErrors();
    const one = (name: string, kind: number) => receiver.spans.find((s) => s.name === name && s.kind === kind);
    await receiver.until('the chat and server spans', () => one('invoke_agent', 1) !== undefined && one('tools/call echo', 2) !== undefined);
    const agent = one('invoke_agent', 1)!;
    const tool = one('execute_tool echo', 1)!;
    const client = one('tools/call echo', 3)!;
    const server = one('tools/call echo', 2)!;
    const turns = receiver.spans.filter((s) => s.name === 'chat scripted' && s.kind === 3);
    assert.equal(turns.length, 2);
    for (const s of [...turns, tool]) assert.equal(s.parentSpanId, agent.spanId, `${s.name} is under the message`);
    assert.equal(client.parentSpanId, tool.spanId, 'the MCP client span is under execute_tool');
    assert.equal(server.parentSpanId, client.spanId, "the server's span continues the chat's trace");
    assert.equal(new Set([agent, tool, client, server, ...turns].map((s) => s.traceId)).size, 1);
    const attrs = Object.fromEntries(turns[0].attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    assert.equal(attrs['gen_ai.provider.name'], 'openai');
    assert.equal(attrs['gen_ai.operation.name'], 'chat');
    assert.ok(receiver.services.has('the-chat') && receiver.services.has('the-server'));
  } finally {
    await served.stop();
    await llm.close();
    await receiver.close();
  }
});

test('chat with a stdio server exports one trace with it: chat passes the OTEL_* configuration to the servers it starts', async () => {
  const receiver = await otlpReceiver();
  // Only chat's environment says where to export; the stdio server gets it from chat.
  const otlp = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_SERVICE_NAME: 'the-chat',
  };
  const llm = await startScriptedOpenAI([toolCallsTurn({ name: 'echo', arguments: { message: 'five' } }), textTurn('It said five.')]);
  try {
    const r = await mcpkitProcess(
      ['chat', '--base-url', llm.baseUrl, '--model', 'scripted', '--server', `${CLI_LINE} serve --stdio`, '--yes', '-p', 'echo five'],
      {
        env: cleanEnv(otlp),
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /It said five\./);
    llm.assertNoErrors();
    const one = (name: string, kind: number) => receiver.spans.find((s) => s.name === name && s.kind === kind);
    await receiver.until('the stdio server span', () => one('tools/call echo', 2) !== undefined && one('tools/call echo', 3) !== undefined);
    const client = one('tools/call echo', 3)!;
    const server = one('tools/call echo', 2)!;
    assert.equal(server.parentSpanId, client.spanId, "the stdio server's span continues the chat's trace");
    assert.equal(server.traceId, client.traceId);
    // The server names itself: chat's OTEL_SERVICE_NAME is not passed on.
    assert.ok(receiver.services.has('the-chat'));
    assert.ok(
      [...receiver.services].some((name) => name !== 'the-chat'),
      `the server's own service: ${[...receiver.services].join(', ')}`,
    );
  } finally {
    await llm.close();
    await receiver.close();
  }
});

test("gateway and serve export one trace: the client's trace through the gateway's front and backend spans", async () => {
  const receiver = await otlpReceiver();
  const otlp = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
  };
  const served = await serveJson(['--port', '0', '--log-format', 'json'], cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-server' }));
  const config = join(tempDir('gateway-otel'), 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { back: { url: served.url } } }));
  const gateway = await serveJson(
    ['--config', config, '--port', '0', '--log-format', 'json'],
    cleanEnv({ ...otlp, OTEL_SERVICE_NAME: 'the-gateway' }),
    'gateway',
  );
  const client = new McpClient({ name: 'otel-test', version: '1.0.0', era: 'modern' });
  try {
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
    await client.request('tools/call', { name: 'back_echo', arguments: { message: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${PARENT}-01` } });
    const one = (name: string, kind: number) => receiver.spans.find((s) => s.name === name && s.kind === kind);
    await receiver.until('the gateway and server spans', () => one('tools/call echo', 2) !== undefined && one('tools/call back_echo', 2) !== undefined);
    const front = one('tools/call back_echo', 2)!;
    const forward = one('tools/call echo', 3)!;
    const server = one('tools/call echo', 2)!;
    assert.equal(front.traceId, TRACE_ID, "the gateway's front span is in the client's trace");
    assert.equal(front.parentSpanId, PARENT);
    assert.equal(forward.parentSpanId, front.spanId, 'the backend call is under the front span');
    assert.equal(server.parentSpanId, forward.spanId, "the backend's span continues the trace");
    assert.equal(server.traceId, TRACE_ID);
    assert.ok(receiver.services.has('the-gateway') && receiver.services.has('the-server'));
  } finally {
    await client.close();
    await gateway.stop();
    await served.stop();
    await receiver.close();
  }
});

test('telemetry asked for without the SDK installed: one line saying what to install', async () => {
  const { load } = await import('../../src/cli/otel.js');
  await assert.rejects(load('@opentelemetry/not-installed-here'), (err: Error) => {
    assert.equal(err.name, 'CommandError');
    assert.match(
      err.message,
      /^--otel asks for OpenTelemetry export, which needs the OpenTelemetry SDK, and it is not installed: npm install @opentelemetry\/api @opentelemetry\/sdk-node \(next to mcpkit\), or drop --otel$/,
    );
    return true;
  });
  await assert.rejects(load('@opentelemetry/not-installed-here', 'OTEL_EXPORTER_OTLP_ENDPOINT'), (err: Error) =>
    /^OTEL_EXPORTER_OTLP_ENDPOINT \(set in the environment\) asks for .*, or unset OTEL_EXPORTER_OTLP_ENDPOINT$/.test(err.message),
  );
  const { otelWanted } = await import('../../src/cli/otel.js');
  assert.equal(otelWanted(false, {}), false);
  assert.equal(otelWanted(false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(otelWanted(true, { OTEL_SDK_DISABLED: 'true' }), false);
});
