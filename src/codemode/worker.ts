// The worker a sandbox run happens in (sandbox.ts starts it): one run at a time, its tool calls
// sent to the host as messages and answered by it. The thread is the host's to end: a program
// that holds it (work between two checks of its compute time) is ended by terminating it.
import { parentPort } from 'node:worker_threads';
import { runInThread } from './runner.js';
import type { HostMessage, WorkerMessage } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('codemode/worker.js runs as a worker thread of the sandbox');

/** The current run's calls waiting for the host's answer, by index. */
const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
let current: number | undefined;
/** Answers the current run has received. */
let answered = 0;

const post = (message: WorkerMessage) => port.postMessage(message);

port.on('message', (message: HostMessage) => {
  if (message.type === 'run') void start(message);
  else if (message.type === 'answer' && message.run === current) {
    answered++;
    const waiting = pending.get(message.index);
    if (!waiting) return;
    pending.delete(message.index);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(Object.assign(new Error(message.message), { name: message.name }));
  }
});

async function start(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const run = message.run;
  current = run;
  answered = 0;
  pending.clear();
  try {
    const result = await runInThread({
      code: message.code,
      api: new Map(message.api),
      now: message.now,
      limits: message.limits,
      onStart: () => post({ type: 'started', run }),
      onIdle: (computeMs) => post({ type: 'idle', run, computeMs, answered }),
      call: (c) =>
        new Promise((resolve, reject) => {
          const onAbort = () => {
            if (!pending.delete(c.index)) return;
            post({ type: 'abort', run, index: c.index });
            reject(c.signal.reason instanceof Error ? c.signal.reason : new Error('the run was stopped'));
          };
          const settle = (fn: () => void) => {
            c.signal.removeEventListener('abort', onAbort);
            fn();
          };
          pending.set(c.index, { resolve: (v) => settle(() => resolve(v)), reject: (e) => settle(() => reject(e)) });
          c.signal.addEventListener('abort', onAbort, { once: true });
          post({ type: 'call', run, index: c.index, namespace: c.namespace, name: c.name, args: c.args });
        }),
    });
    post({ type: 'done', run, result });
  } catch (err) {
    post({ type: 'failed', run, name: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) });
  } finally {
    current = undefined;
    pending.clear();
  }
}
