// --era through the CLI: auto (the default) speaks 2026-07-28 to a server that does and falls
// back to the handshake otherwise; modern and handshake pin one. The wire shows which.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpkit, OFFICIAL_LINE, startListening, type Running } from './helpers.js';

let server: Running;
before(async () => {
  server = await startListening(['serve', '--port', '0']);
});
after(async () => {
  await server?.stop();
});

/** The pretty trace cut into one block per arrow line (an HTTP exchange or a message). */
const blocks = (stderr: string) => stderr.split(/^(?=[→←] )/m);

describe('--era', () => {
  test('inspect prints the era and version settled on, and why', async () => {
    const auto = await mcpkit(['inspect', server.url]);
    assert.equal(auto.code, 0, auto.stderr);
    assert.match(auto.stdout, /^Protocol +2026-07-28$/m);
    assert.match(auto.stdout, /^Era +modern \(stateless requests, no session; the server answered server\/discover\)$/m);
    const modern = await mcpkit(['inspect', server.url, '--era', 'modern', '--json']);
    const m = JSON.parse(modern.stdout) as { era: string; eraRequested: string; protocolVersion: string };
    assert.deepEqual([m.era, m.eraRequested, m.protocolVersion], ['modern', 'modern', '2026-07-28']);
    const hs = await mcpkit(['inspect', server.url, '--era', 'handshake']);
    assert.match(hs.stdout, /^Protocol +2025-11-25$/m);
    assert.match(hs.stdout, /^Era +handshake \(initialize and a session; --era handshake\)$/m);
    assert.match(hs.stdout, /^Round trip +[\d.]+ ms \(ping\)$/m);
    const pinned = await mcpkit(['inspect', server.url, '--protocol-version', '2025-06-18']);
    assert.match(pinned.stdout, /^Protocol +2025-06-18$/m);
    assert.match(pinned.stdout, /^Era +handshake \(initialize and a session; --protocol-version 2025-06-18\)$/m);
    const sse = await mcpkit(['inspect', server.url.replace(/\/mcp$/, '/sse')]);
    assert.match(sse.stdout, /^Era +handshake \(initialize and a session; HTTP\+SSE speaks only this era\)$/m);
  });

  test('--era modern against a server without 2026-07-28 fails clearly; auto falls back', async () => {
    const r = await mcpkit(['tools', OFFICIAL_LINE, '--era', 'modern']);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /Could not connect: the server does not speak the 2026-07-28 era: it answered server\/discover with -32601 .*Try --era auto or --era handshake/,
    );
    const auto = await mcpkit(['call', OFFICIAL_LINE, 'echo', 'message=fell back', '--trace']);
    assert.equal(auto.code, 0, auto.stderr);
    assert.equal(auto.stdout, 'fell back\n');
    assert.match(auto.stderr, /^→ server\/discover #\S+/m);
    assert.match(auto.stderr, /^← error #\S+ -32601/m);
    assert.match(auto.stderr, /^→ initialize #\d+/m);
  });

  test('usage errors: an unknown era, an era that contradicts the pinned version', async () => {
    const bad = await mcpkit(['tools', server.url, '--era', 'newest']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--era: one of auto, modern, handshake, got "newest"/);
    const clash = await mcpkit(['tools', server.url, '--era', 'modern', '--protocol-version', '2025-06-18']);
    assert.equal(clash.code, 2);
    assert.match(clash.stderr, /--protocol-version 2025-06-18 is a handshake-era revision; --era modern needs 2026-07-28 or later/);
    const clash2 = await mcpkit(['tools', server.url, '--era', 'handshake', '--protocol-version', '2026-07-28']);
    assert.equal(clash2.code, 2);
    assert.match(clash2.stderr, /belongs to the stateless era/);
  });

  test('--trace in the modern era: server/discover, Mcp-Method and Mcp-Name, no session, no DELETE', async () => {
    const r = await mcpkit(['call', server.url, 'count', 'n=2', '--trace']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Counted to 2.\n');
    const b = blocks(r.stderr);
    const discover = b.find((x) => x.startsWith('→ POST /mcp') && /"method": "server\/discover"/.test(x));
    assert.ok(discover, 'server/discover is the first request');
    assert.ok(b.indexOf(discover) <= b.findIndex((x) => x.startsWith('→ POST /mcp')));
    assert.match(discover, /^ {2}Mcp-Method: server\/discover$/m);
    assert.match(discover, /^ {2}MCP-Protocol-Version: 2026-07-28$/m);
    const call = b.find((x) => x.startsWith('→ POST /mcp') && /"method": "tools\/call"/.test(x));
    assert.ok(call, 'the tools/call POST');
    assert.match(call, /^ {2}Mcp-Method: tools\/call$/m);
    assert.match(call, /^ {2}Mcp-Name: count$/m);
    assert.match(call, /"io\.modelcontextprotocol\/protocolVersion": "2026-07-28"/);
    assert.doesNotMatch(r.stderr, /"method": "initialize"/);
    assert.doesNotMatch(r.stderr, /Mcp-Session-Id/);
    assert.doesNotMatch(r.stderr, /^→ DELETE/m);
    // Progress still arrives (on the POST's SSE stream).
    assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('progress')).length, 2);
  });

  test('call with elicitation in the modern era goes through input_required; in the handshake era, a request', async () => {
    const r = await mcpkit(['call', server.url, 'greet_me', '--trace']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'No greeting: you chose to decline.\n');
    const b = blocks(r.stderr);
    const first = b.findIndex((x) => x.startsWith('← 200 OK POST /mcp') && /"resultType": "input_required"/.test(x));
    assert.ok(first >= 0, 'the first answer asks for input');
    assert.match(b[first], /"method": "elicitation\/create"/);
    const state = /"requestState": "([^"]+)"/.exec(b[first])![1];
    // The retry: the same tool, the answer (declined: no terminal here) and the state echoed.
    const retry = b.slice(first + 1).find((x) => x.startsWith('→ POST /mcp') && /"name": "greet_me"/.test(x));
    assert.ok(retry, 'the call is sent again');
    assert.match(retry, /"inputResponses": \{\s+"elicit-1": \{\s+"action": "decline"/);
    assert.ok(retry.includes(`"requestState": "${state}"`), 'requestState is sent back unchanged');
    assert.doesNotMatch(r.stderr, /"method": "elicitation\/create",\s+"id"|"id": \d+,\s+"method": "elicitation\/create"/);

    const hs = await mcpkit(['call', server.url, 'greet_me', '--trace', '--era', 'handshake']);
    assert.equal(hs.stdout, 'No greeting: you chose to decline.\n');
    assert.match(hs.stderr, /^← SSE elicitation\/create #\d+/m);
    assert.doesNotMatch(hs.stderr, /input_required/);
  });
});
