// A slow client (slowloris) for the tests that check a listener cuts one: it sends `head`, then
// one more `drip` every few milliseconds, never finishing its request.
import { connect } from 'node:net';

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
