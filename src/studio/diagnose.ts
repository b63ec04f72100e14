// What the studio shows when a connection fails. The connection doctor (src/host/doctor) runs the
// connection step by step and names the failing step and its fix; the studio takes it through
// this small interface (StudioOptions.diagnose; `mcpkit studio` gives it fromDoctor(diagnose)),
// so the studio need not know how it works. Without one, the studio reads the error alone
// (firstLook), which names the common cases but cannot probe.
import { ServerExitedError } from '../client/era.js';
import type { Target } from '../pool/targets.js';
import { HttpStatusError } from '../transports/http/client/http-common.js';
import type { Diagnosis } from './api-types.js';

/** Diagnoses a failed connection to `target`; `stderr` is what a stdio server wrote last. */
export type Diagnose = (target: Target, failure: { error: Error; stderr: readonly string[] }) => Promise<Diagnosis | undefined>;

const HTTP_FIX: Record<number, string> = {
  401: 'The server wants credentials: add a header to the target in your config ("headers": {"Authorization": "Bearer ..."}), or sign in with mcpkit inspect --oauth first.',
  403: 'The server refused this client: check its allowed origins/hosts and the credentials given.',
  404: 'Nothing answers MCP at this path: check the URL (most servers use /mcp; HTTP+SSE servers /sse).',
  405: 'The server does not take POST here: the URL may be a web page, or an HTTP+SSE endpoint (try /sse).',
  406: 'The server refused the Accept header: it may not implement Streamable HTTP.',
  415: 'The server refused the content type: it may not implement Streamable HTTP.',
};

/** The studio's own reading of a failure: no probing, only the error and the stderr it has. */
export async function firstLook(target: Target, failure: { error: Error; stderr: readonly string[] }): Promise<Diagnosis> {
  const e = failure.error;
  const stderr = failure.stderr.slice(-10);
  const evidence = stderr.length > 0 ? stderr : undefined;
  if (target.kind === 'stdio') {
    if (/command not found|ENOENT/.test(e.message)) {
      return {
        by: 'studio',
        step: 'start the command',
        problem: `"${target.command}" could not be started: ${e.message}`,
        fix: 'Check the command is installed and on PATH, or give its full path.',
        evidence,
      };
    }
    if (e instanceof ServerExitedError) {
      return {
        by: 'studio',
        step: `answer ${e.method}`,
        problem: `The server ${e.signal ? `was killed by ${e.signal}` : `exited with code ${e.exitCode}`} before answering ${e.method}.`,
        fix: stderr.length > 0 ? 'Its last words on stderr are below.' : 'It wrote nothing on stderr: run the command in a terminal to see what it does.',
        evidence,
      };
    }
    if (/not valid JSON|Unexpected token|parse/i.test(e.message)) {
      return {
        by: 'studio',
        step: 'read its messages',
        problem: `The server wrote something that is not a JSON-RPC message on stdout: ${e.message}`,
        fix: 'A stdio server must write only protocol messages on stdout; logs go to stderr.',
        evidence,
      };
    }
  }
  // Streamable HTTP refused, then the HTTP+SSE fallback too: the first refusal says most.
  const http =
    e instanceof HttpStatusError ? e : e instanceof AggregateError ? e.errors.find((x): x is HttpStatusError => x instanceof HttpStatusError) : undefined;
  if (http) {
    return {
      by: 'studio',
      step: `HTTP ${http.method} ${safePath(http.url)}`,
      problem: e === http ? `The server answered HTTP ${http.status}.` : e.message,
      fix: HTTP_FIX[http.status],
      evidence: http.body ? [http.body.slice(0, 500)] : undefined,
    };
  }
  if (/ECONNREFUSED|fetch failed|ENOTFOUND|EAI_AGAIN/.test(`${e.message} ${String((e.cause as Error | undefined)?.message ?? '')}`)) {
    return {
      by: 'studio',
      step: 'reach the server',
      problem: `Nothing answers at ${target.kind === 'http' ? target.url : 'the address'}: ${e.message}`,
      fix: 'Is the server running, on this port?',
    };
  }
  if (/timed? ?out/i.test(e.message)) {
    return {
      by: 'studio',
      step: 'get an answer',
      problem: `The server did not answer in time: ${e.message}`,
      fix: 'A slow start? A server that waits for something else (a login, a prompt on its terminal)?',
      evidence,
    };
  }
  return { by: 'studio', step: 'connect', problem: e.message, evidence };
}

/** The doctor's diagnosis, as far as the studio reads it (src/host/doctor/types.ts on wip/doctor). */
export interface DoctorDiagnosis {
  ok: boolean;
  steps: ReadonlyArray<{ step: string; ok: boolean; ms: number; detail: string }>;
  failure?: { step: string; summary: string; fix: string };
}

/** The doctor's entry point, as far as the studio calls it. */
export type DoctorFn = (
  target: { url: string; headers?: Record<string, string> } | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string },
  options: { cwd?: string; baseEnv?: Record<string, string | undefined> },
) => Promise<DoctorDiagnosis>;

/**
 * The connection doctor as the studio's Diagnose: it walks the connection again (a stdio server
 * is started once more: it is one the user named or confirmed) and its first failing step becomes
 * the diagnosis, every step it took the evidence. When the doctor's own walk succeeds (a server that
 * failed once and not again), undefined: the studio falls back to reading the error.
 */
export function fromDoctor(doctor: DoctorFn, options: { cwd?: string; baseEnv?: Record<string, string | undefined> } = {}): Diagnose {
  return async (target) => {
    const d = await doctor(
      target.kind === 'http' ? { url: target.url, headers: target.headers } : { command: target.command, args: target.args, env: target.env, cwd: target.cwd },
      options,
    );
    if (d.ok || !d.failure) return undefined;
    return {
      by: 'doctor',
      step: d.failure.step,
      problem: d.failure.summary,
      fix: d.failure.fix,
      evidence: d.steps.map((s) => `${s.ok ? '✓' : '✖'} ${s.step} (${Math.round(s.ms)} ms): ${s.detail}`),
    };
  };
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
