// A slow client (slowloris) for the tests that check a listener cuts one: it sends `head`, then
// one more `drip` every few milliseconds, never finishing its request.
import { connect } from 'node:net';
import { within } from './wait.js';

/** Resolves with what the server answered once the server closes the connection. */
export function trickle(port: number, head: string, drip: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: ReturnType<typeof setInterval> | undefined;
    socket.on('connect', () => {
      socket.write(head);
      // Pacing the client, not measuring: the server must cut it however busy it keeps the line.
      timer = setInterval(() => socket.write(drip), 20);
    });
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => {}); // a reset after the server's close is a close too
    socket.on('close', () => {
      clearInterval(timer);
      resolve(answer);
    });
  });
}

/**
 * A complete request to a listener whose timeouts a test set tiny (200 ms) to cut slow clients
 * quickly. Node enforces them from a timer, and on a starved machine that timer can run before the
 * request, already whole in the socket's buffer, is read: it gets a 408 it did not earn. That is
 * the tiny timeout at work, not a listener that stopped serving, so the request is made again
 * until the answer is anything else; a listener that only ever answers 408 fails on the safety net.
 */
export function pastTinyTimeouts(request: () => Promise<Response>, what: string): Promise<Response> {
  return within(
    (async () => {
      for (;;) {
        const res = await request();
        if (res.status !== 408) return res;
        await res.body?.cancel();
      }
    })(),
    what,
  );
}
