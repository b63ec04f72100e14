// The client commands against the demo server over HTTP, all through the real CLI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { mcpkit, startListening, type Running } from './helpers.js';

let server: Running;

before(async () => {
  server = await startListening(['serve', '--port', '0']);
});
after(async () => {
  await server?.stop();
});

describe('mcpkit serve (demo, HTTP)', () => {
  test('prints where it listens, both transports, and a config snippet', () => {
    const out = server.stdout();
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(out, /Streamable HTTP {2}http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.match(out, /HTTP\+SSE {9}http:\/\/127\.0\.0\.1:\d+\/sse/);
    const json = out.slice(out.indexOf('{\n'), out.indexOf('\n}\n') + 2);
    assert.deepEqual(JSON.parse(json), { mcpServers: { 'mcpkit-demo': { url: server.url } } });
  });

  test('a library client sees every demo feature', async () => {
    const client = await connect(server.url);
    try {
      const names = (await client.listAllTools()).map((t) => t.name);
      for (const n of ['echo', 'count', 'test_throw', 'echo_ip', 'get_weather', 'suggest_activity', 'search_docs', 'toggle_bonus_tool'])
        assert.ok(names.includes(n), n);
      assert.ok(!names.includes('lucky_number'));
      assert.ok((await client.listAllResources()).length >= 30);
      assert.deepEqual(
        (await client.listAllResourceTemplates()).map((t) => t.uriTemplate),
        ['docs://mcpkit/{id}', 'weather://{city}'],
      );
      const c = await client.complete({ ref: { type: 'ref/prompt', name: 'plan_day' }, argument: { name: 'city', value: 'S' } });
      assert.deepEqual(c.completion.values, ['Sydney', 'San Francisco', 'Singapore']);
      const r = await client.complete({ ref: { type: 'ref/resource', uri: 'docs://mcpkit/{id}' }, argument: { name: 'id', value: 'res' } });
      assert.deepEqual(r.completion.values, ['resources', 'resource-templates', 'resumption']);
      const w = await client.readResource('weather://Oslo');
      assert.equal(JSON.parse((w.contents[0] as { text: string }).text).condition, 'snowy');
    } finally {
      await client.close();
    }
  });

  test('tools lists name, title, description and parameters', async () => {
    const r = await mcpkit(['tools', server.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^echo {2}Echo\n {2}Returns the message you send\.\n {4}message\* {2}string {2}Text to echo back$/m);
    assert.match(r.stdout, /n {2}integer 1\.\.1000 {2}Where to count to · default 5/);
    assert.match(r.stdout, /condition\* {2}"sunny" \| "cloudy"/);
    assert.match(r.stdout, /\n11 tools\n$/);
  });

  test('tools --json is the raw list', async () => {
    const r = await mcpkit(['tools', server.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { tools } = JSON.parse(r.stdout) as { tools: Array<{ name: string; inputSchema: unknown }> };
    assert.equal(tools.length, 11);
    assert.deepEqual(tools.find((t) => t.name === 'echo')?.inputSchema, {
      type: 'object',
      properties: { message: { type: 'string', description: 'Text to echo back' } },
      required: ['message'],
    });
  });

  test('resources, templates and prompts list', async () => {
    const res = await mcpkit(['resources', server.url]);
    const tpl = await mcpkit(['templates', server.url]);
    const pr = await mcpkit(['prompts', server.url, '--json']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^what-is-mcp {2}What is MCP\? {2}docs:\/\/mcpkit\/what-is-mcp {2}\(text\/markdown\)$/m);
    assert.match(res.stdout, /\n32 resources\n$/);
    assert.match(tpl.stdout, /^weather {2}Weather by city {2}weather:\/\/\{city\} {2}\(application\/json\)$/m);
    assert.deepEqual(
      (JSON.parse(pr.stdout) as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name),
      ['plan_day', 'summarize_doc'],
    );
  });

  test('call count: one progress line per step (not a TTY), the result on stdout', async () => {
    const r = await mcpkit(['call', server.url, 'count', '{"n":5}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 5.\n');
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress'));
    assert.deepEqual(
      lines,
      [1, 2, 3, 4, 5].map((i) => `progress ${i}/5 (${i * 20}%) Step ${i} of 5`),
    );
  });

  test('call build_report: a task, followed to its result; --no-tasks gets it at once', async () => {
    const r = await mcpkit(['call', server.url, 'build_report', 'seconds=1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Report ready after 1 s.\n');
    assert.match(r.stderr, /^task [0-9a-f-]{36} working\ntask [0-9a-f-]{36} completed\n/m);
    const plain = await mcpkit(['call', server.url, 'build_report', 'seconds=1', '--no-tasks']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, 'Report ready after 1 s.\n');
    assert.doesNotMatch(plain.stderr, /^task /m);
  });

  test('call with key=value arguments; structured results print as JSON', async () => {
    const r = await mcpkit(['call', server.url, 'search_docs', 'keyword=mcp http', 'pageIndex=0']);
    assert.equal(r.code, 0, r.stderr);
    const page = JSON.parse(r.stdout) as { total: number; results: Array<{ id: string }>; pageSize: number; totalPages: number };
    assert.equal(page.pageSize, 10);
    assert.equal(page.total, 8);
    assert.equal(page.totalPages, 1);
    assert.ok(page.results.every((d) => d.id));
    const echo = await mcpkit(['call', server.url, 'echo', 'message=hi there']);
    assert.equal(echo.stdout, 'hi there\n');
    // A string parameter gets the text as typed, even when it looks like a number.
    const digits = await mcpkit(['call', server.url, 'echo', 'message=123']);
    assert.equal(digits.code, 0, digits.stderr);
    assert.equal(digits.stdout, '123\n');
  });

  test('search_docs pages 10 at a time and needs every keyword', async () => {
    const p0 = JSON.parse((await mcpkit(['call', server.url, 'search_docs', 'keyword=mcp', '--json'])).stdout) as {
      structuredContent: Record<string, unknown>;
    };
    assert.equal((p0.structuredContent.results as unknown[]).length, 10);
    assert.equal(p0.structuredContent.nextPageIndex, 1);
    assert.equal(p0.structuredContent.total, 32);
    assert.equal(p0.structuredContent.totalPages, 4);
    const p3 = JSON.parse((await mcpkit(['call', server.url, 'search_docs', 'keyword=mcp', 'pageIndex=3', '--json'])).stdout) as {
      structuredContent: Record<string, unknown>;
    };
    assert.equal((p3.structuredContent.results as unknown[]).length, 2);
    assert.equal(p3.structuredContent.nextPageIndex, undefined);
    const none = JSON.parse((await mcpkit(['call', server.url, 'search_docs', 'keyword=progress zebra', '--json'])).stdout) as {
      structuredContent: Record<string, unknown>;
    };
    assert.equal(none.structuredContent.total, 0);
  });

  test('an isError result: shown on stderr, exit code 1', async () => {
    const r = await mcpkit(['call', server.url, 'test_throw']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /✖ Tool "test_throw" returned an error \(isError: true\)\ntest_throw failed on purpose/);
    const j = await mcpkit(['call', server.url, 'test_throw', '--json']);
    assert.equal(j.code, 1);
    assert.equal((JSON.parse(j.stdout) as { isError: boolean }).isError, true);
  });

  test('an unknown tool: the JSON-RPC error, exit code 1', async () => {
    const r = await mcpkit(['call', server.url, 'no_such_tool']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /✖ JSON-RPC error -32602: Unknown tool: no_such_tool/);
    const j = await mcpkit(['call', server.url, 'no_such_tool', '--json']);
    assert.deepEqual(JSON.parse(j.stdout), { error: { code: -32602, message: 'Unknown tool: no_such_tool' } });
  });

  test('bad arguments are a usage error (exit 2)', async () => {
    const r = await mcpkit(['call', server.url, 'echo', 'oops']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /expected key=value or one JSON object, got "oops"/);
  });

  test('get_weather and suggest_activity are deterministic; echo_ip gives the caller address', async () => {
    const w = await mcpkit(['call', server.url, 'get_weather', 'city=Tokyo', '--json']);
    const a = await mcpkit(['call', server.url, 'suggest_activity', 'condition=sunny']);
    const ip = await mcpkit(['call', server.url, 'echo_ip']);
    assert.deepEqual((JSON.parse(w.stdout) as { structuredContent: unknown }).structuredContent, {
      city: 'Tokyo',
      condition: 'sunny',
      temperatureC: 22,
      humidity: 55,
      windKmh: 8,
    });
    assert.equal(a.stdout, 'Go for a hike or have a picnic in the park.\n');
    assert.equal(ip.stdout, 'Your address: 127.0.0.1\n');
  });

  test('log messages go to stderr with --log-level', async () => {
    const r = await mcpkit(['call', server.url, 'count', 'n=1', '--log-level', 'debug']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[info\] count: counting to 1/);
    assert.match(r.stderr, /\[debug\] count: counted to 1/);
  });

  test('elicitation and sampling are refused clearly without a terminal', async () => {
    const g = await mcpkit(['call', server.url, 'greet_me']);
    assert.equal(g.code, 0, g.stderr);
    assert.match(g.stderr, /The server asked for input \("How should I greet you\?"\) but mcpkit is not running on a terminal: declined/);
    assert.equal(g.stdout, 'No greeting: you chose to decline.\n');
    const s = await mcpkit(['call', server.url, 'ask_model', 'question=hi']);
    assert.match(s.stderr, /asked for a model completion \(sampling\) but mcpkit is not running on a terminal: refused/);
    assert.equal(s.code, 1);
  });

  test('read prints a resource; prompt prints messages', async () => {
    const r = await mcpkit(['read', server.url, 'docs://mcpkit/progress']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^# Progress notifications\n\nA request may carry a progressToken/);
    const missing = await mcpkit(['read', server.url, 'docs://mcpkit/nope']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Resource not found: docs:\/\/mcpkit\/nope/);
    const p = await mcpkit(['prompt', server.url, 'plan_day', 'city=Oslo', 'mood=active']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /Plans a day out in a city, given its weather\.\n\nuser:\n {2}Plan a active day in Oslo\. The weather is snowy, -3°C/);
    const j = await mcpkit(['prompt', server.url, 'summarize_doc', '{"id":"roots"}', '--json']);
    const body = JSON.parse(j.stdout) as { messages: Array<{ content: { type: string; resource?: { uri: string } } }> };
    assert.equal(body.messages[0].content.resource?.uri, 'docs://mcpkit/roots');
    const bad = await mcpkit(['prompt', server.url, 'plan_day']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Missing required argument for prompt "plan_day": city/);
  });

  test('inspect summarises the connection', async () => {
    const r = await mcpkit(['inspect', server.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Server +mcpkit-demo \d+\.\d+\.\d+ {2}"mcpkit demo server"$/m);
    assert.match(r.stdout, /^Transport +streamable-http$/m);
    // --era auto (the default) finds the demo server speaks 2026-07-28.
    assert.match(r.stdout, /^Protocol +2026-07-28$/m);
    assert.match(r.stdout, /^Era +modern \(stateless requests, no session; the server answered server\/discover\)$/m);
    assert.match(r.stdout, /^Connect +[\d.]+ ms \(connect \+ server\/discover\)$/m);
    assert.match(r.stdout, /^Offers +11 tools, 32 resources, 2 templates, 2 prompts$/m);
    assert.match(r.stdout, /^Round trip +[\d.]+ ms \((ping|tools\/list)\)$/m);
    assert.match(r.stdout, /^Instructions\n {2}The mcpkit demo server\./m);
    const j = JSON.parse((await mcpkit(['inspect', server.url, '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(j.counts, { tools: 11, resources: 32, resourceTemplates: 2, prompts: 2 });
    assert.deepEqual(j.serverInfo, { name: 'mcpkit-demo', title: 'mcpkit demo server', version: (j.serverInfo as { version: string }).version });
    assert.ok(typeof (j.roundTrip as { ms: number }).ms === 'number');
    assert.equal(j.protocolVersion, '2026-07-28');
    assert.equal(j.era, 'modern');
    assert.equal(j.eraRequested, 'auto');
  });

  test('the deprecated HTTP+SSE endpoint works as a target', async () => {
    const r = await mcpkit(['call', server.url.replace(/\/mcp$/, '/sse'), 'count', 'n=2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 2.\n');
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('progress')).length, 2);
    const i = JSON.parse((await mcpkit(['inspect', server.url.replace(/\/mcp$/, '/sse'), '--json'])).stdout) as { transport: string };
    assert.equal(i.transport, 'sse');
  });
});

describe('mcpkit complete', () => {
  test('prompt and resource template arguments, one value a line; --json is the raw result', async () => {
    const p = await mcpkit(['complete', server.url, 'prompt:plan_day', 'city', 'S']);
    assert.equal(p.code, 0, p.stderr);
    assert.equal(p.stdout, 'Sydney\nSan Francisco\nSingapore\n');
    const r = await mcpkit(['complete', server.url, 'resource:docs://mcpkit/{id}', 'id', 'res', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { completion: unknown }).completion, {
      values: ['resources', 'resource-templates', 'resumption'],
      total: 3,
      hasMore: false,
    });
    // Without a prefix: a URI template is a resource, a plain name a prompt; no VALUE is "".
    const all = await mcpkit(['complete', server.url, 'weather://{city}', 'city', '--era', 'handshake']);
    assert.equal(all.code, 0, all.stderr);
    assert.ok(all.stdout.split('\n').includes('Oslo'), all.stdout);
    const mood = await mcpkit(['complete', server.url, 'plan_day', 'mood', 'a', '--context', 'city=Oslo', '--trace']);
    assert.equal(mood.stdout, 'active\n');
    assert.match(mood.stderr, /"context": \{\s+"arguments": \{\s+"city": "Oslo"\s+\}/);
  });

  test('nothing to suggest, an unknown prompt, a bad REF', async () => {
    const none = await mcpkit(['complete', server.url, 'prompt:plan_day', 'city', 'Zz']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /No completions for city="Zz" of prompt "plan_day"\./);
    const unknown = await mcpkit(['complete', server.url, 'prompt:nope', 'city', 'S']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /✖ JSON-RPC error -32602: Unknown prompt: nope/);
    const bad = await mcpkit(['complete', server.url, 'prompt:', 'city']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /REF "prompt:" names no prompt/);
  });
});

describe('mcpkit serve (demo, HTTP): run-time changes', () => {
  test('toggle_bonus_tool changes the tool list', async () => {
    // Over HTTP+SSE (handshake era) the notification arrives on the session's stream.
    const client = await connect(server.url.replace(/\/mcp$/, '/sse'));
    try {
      const changed = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
      await mcpkit(['call', server.url, 'toggle_bonus_tool']);
      const names = (await mcpkit(['tools', server.url, '--json'])).stdout;
      assert.match(names, /"lucky_number"/);
      await mcpkit(['call', server.url, 'toggle_bonus_tool']);
      assert.doesNotMatch((await mcpkit(['tools', server.url, '--json'])).stdout, /"lucky_number"/);
      await changed;
    } finally {
      await client.close();
    }
  });
});
