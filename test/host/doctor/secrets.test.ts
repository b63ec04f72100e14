// Attacks on the connection doctor's report: what the user gave to reach a server (environment
// values, header values, a URL's password and key parameters, secret-looking arguments) must not
// come back in the diagnosis, even when the server repeats it; and credentials must not follow a
// redirect to another origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as servers from '../../fixtures/doctor/http-servers.js';
import type { DoctorEvent } from '../../../src/host/doctor/types.js';
import { fixture, run, start } from './helpers.js';

const SECRET = 'doctor-secret-7f3a9c1e55';
const TOKEN = 'sk-live-0123456789abcdef';

/** Everything the doctor said, in the diagnosis and in its events. */
function everything(d: unknown, events: DoctorEvent[]): string {
  return JSON.stringify({ d, events });
}

test('a server that prints its secret environment value on stderr: the value is not in the diagnosis nor its events', async () => {
  const { events, running } = start({
    command: process.execPath,
    args: [fixture('leaks-env.mjs'), '--token', 'arg-secret-42424242'],
    env: { DOCTOR_SECRET: SECRET },
  });
  const d = await running;
  assert.equal(d.failure?.code, 'exited-at-start');
  const said = everything(d, events.all);
  assert.ok(!said.includes(SECRET), `the env secret leaked:\n${said}`);
  assert.ok(!said.includes('arg-secret-42424242'), `the argument secret leaked:\n${said}`);
  // What was there is visibly masked, not silently dropped.
  assert.match(d.failure!.summary, /connecting with token \[redacted\] \.\.\. refused/);
  assert.match(d.target, /--token \[redacted\]/);
});

test('a server that echoes the Authorization header in its error page: the token is not in the diagnosis nor its events', async () => {
  const s = await servers.echoesCredentials();
  try {
    const { events, running } = start({ url: s.url, headers: { Authorization: `Bearer ${TOKEN}` } });
    const d = await running;
    assert.equal(d.failure?.code, 'server-error');
    assert.ok(
      s.seen.some((r) => r.headers.authorization === `Bearer ${TOKEN}`),
      'the server did get the credential (the leak is possible)',
    );
    const said = everything(d, events.all);
    assert.ok(!said.includes(TOKEN), `the token leaked:\n${said}`);
    assert.match(d.failure!.summary, /upstream refused \[redacted\]/);
  } finally {
    await s.close();
  }
});

test('a redirect to another origin: the credential stays with the origin it was given for', async () => {
  const other = await servers.notFound();
  const s = await servers.redirectsTo(`${other.origin}/mcp`);
  try {
    const d = await run({ url: s.url, headers: { Authorization: `Bearer ${TOKEN}`, 'X-Api-Key': SECRET } });
    assert.equal(d.failure?.code, 'redirect');
    assert.ok(
      s.seen.some((r) => r.headers.authorization === `Bearer ${TOKEN}`),
      'the first origin got the credential',
    );
    assert.ok(other.seen.length > 0, 'the doctor went on at the other origin');
    for (const r of other.seen) {
      assert.equal(r.headers.authorization, undefined, `${r.method} ${r.path} carried Authorization to another origin`);
      assert.equal(r.headers['x-api-key'], undefined, `${r.method} ${r.path} carried X-Api-Key to another origin`);
    }
    assert.match(d.failure!.fix, /the headers given were not sent to http:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await s.close();
    await other.close();
  }
});

test("a URL's password and key parameters are not shown", async () => {
  const s = await servers.notFound();
  try {
    const url = `${s.origin.replace('http://', `http://user:${SECRET}@`)}/api?api_key=${TOKEN}&page=2`;
    const { events, running } = start(url);
    const d = await running;
    const said = everything(d, events.all);
    assert.ok(!said.includes(SECRET) && !said.includes(TOKEN), `the URL's secrets leaked:\n${said}`);
    assert.match(d.target, /api_key=redacted&page=2/);
  } finally {
    await s.close();
  }
});
