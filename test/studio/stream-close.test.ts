// The page's event stream when the studio closes: close() ends the streams, and events the hub
// sends while the servers are being let go (before each response's 'close') must not be written to
// an ended response. That write raised ERR_STREAM_WRITE_AFTER_END as an uncaught exception: in
// `mcpkit studio` it killed the process on Ctrl-C with a page open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { deferred } from '../support/index.js';
import { signIn, startTestStudio } from './helpers.js';

test('an event after close() ended the page stream is not written to it', async () => {
  const studio = await startTestStudio();
  const s = await signIn(studio);
  const first = deferred();
  const ended = deferred<string>();
  const req = httpRequest(`${s.origin}/api/events`, { headers: { Cookie: s.cookie, 'X-Mcpkit-Studio-Key': s.key, Origin: s.origin } }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      body += c;
      if (body.includes('\n\n')) first.resolve();
    });
    res.on('close', () => ended.resolve(body));
  });
  req.on('error', () => {});
  req.end();
  await first.promise;
  const closing = studio.close();
  // close() ended the stream synchronously; its response has not emitted 'close' yet.
  studio.hub.emit('roots', { roots: [] });
  await closing;
  const body = await ended.promise;
  assert.match(body, /^event: snapshot\n/);
  assert.doesNotMatch(body, /event: roots/);
});
