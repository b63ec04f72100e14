// Starts an example as a child process and waits for the URL it prints (not a test file itself).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface RunningExample {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function runExample(file: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<RunningExample> {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  child.stderr!.setEncoding('utf8');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: string) => {
        err += d;
        const m = /listening on (\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${err}`)));
    });
    return { url, child, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
