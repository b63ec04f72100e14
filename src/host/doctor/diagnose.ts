// The connection doctor: walks the connection to a server step by step and says which step
// fails, why, and what to do. Used by `mcpkit inspect` (when connecting fails), `mcpkit doctor`
// and the web studio; docs/client.md describes it.
import { systemClock } from '../../engine/clock.js';
import { TargetError } from '../../pool/errors.js';
import { resolveTarget, type Target } from '../../pool/targets.js';
import { diagnoseHttp } from './http.js';
import { scrub, scrubDiagnosis, secretsOf, showUrl } from './redact.js';
import { diagnoseStdio } from './stdio.js';
import { DEFAULT_REDIRECT_URI, type Diagnosis, type DiagnoseOptions, type DoctorContext, type DoctorStep, type DoctorTarget } from './types.js';
import { Walk } from './walk.js';

/** A TARGET as the host resolves it, or the reason it cannot be. */
function toTarget(target: DoctorTarget, o: DiagnoseOptions): Target {
  if (typeof target === 'string') {
    return resolveTarget(target, { config: o.config, headers: o.headers, env: o.env, cwd: o.cwd, home: o.home });
  }
  if ('url' in target) {
    const url = String(target.url);
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new TargetError(`not an http(s) URL: ${url}`);
    return { kind: 'http', url, headers: { ...target.headers, ...o.headers }, label: url };
  }
  if (typeof target.command !== 'string' || target.command === '') throw new TargetError('the target names no command');
  return { kind: 'stdio', command: target.command, args: target.args ?? [], env: { ...target.env, ...o.env }, cwd: target.cwd ?? o.cwd, label: target.command };
}

function commandLine(t: Target & { kind: 'stdio' }): string {
  return [t.command, ...t.args].map((w) => (/[\s"'\\]/.test(w) || w === '' ? JSON.stringify(w) : w)).join(' ');
}

/**
 * Walks the connection to `target` and reports each step: for a command, starting it, its
 * stdout, the era probe, initialize and the first list call; for a URL, DNS, TCP, TLS, CORS
 * (with `origin`), the first POST and what its answer means, authorization on a 401, the
 * protocol and the first list call. Never throws for a broken server: the diagnosis says what
 * broke. Header and environment values never appear in it.
 */
export async function diagnose(target: DoctorTarget, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  // Filled once the target is resolved; events are scrubbed with it as they go out.
  let secrets: string[] = [];
  const ctx: DoctorContext = {
    slowMs: options.slowMs ?? 5000,
    timeoutMs: options.timeoutMs ?? 30_000,
    clock: options.clock ?? systemClock,
    origin: options.origin,
    redirectUri: options.redirectUri ?? DEFAULT_REDIRECT_URI,
    register: options.register ?? true,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    signal: options.signal,
    emit: (e) => {
      try {
        options.onEvent?.(e.type === 'step' ? { type: 'step', step: scrubStep(e.step, secrets) } : e);
      } catch {
        // A listener's failure is not the server's.
      }
    },
  };
  const walk = new Walk(ctx);
  let t: Target;
  try {
    t = toTarget(target, options);
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    const raw = typeof target === 'string' ? target : 'url' in target ? String(target.url) : String(target.command);
    secrets = secretsOf({ headers: options.headers, env: options.env, url: raw.trim() });
    walk.fail(
      'target',
      walk.now(),
      'invalid-target',
      err.message,
      'give a URL (http:// or https://), a command line, or the name of a server in an mcpServers config',
    );
    return finish(walk, { target: showUrl(raw.trim()), transport: 'stdio' }, secrets);
  }
  secrets = t.kind === 'http' ? secretsOf({ headers: t.headers, url: t.url }) : secretsOf({ env: t.env, args: t.args });
  let transport: Diagnosis['transport'] = t.kind === 'http' ? 'http' : 'stdio';
  let server: Diagnosis['server'];
  try {
    if (t.kind === 'http') {
      const r = await diagnoseHttp(walk, { url: t.url, headers: t.headers });
      transport = r.transport;
      server = r.server && { ...r.server.serverInfo, protocolVersion: r.server.protocolVersion, era: r.server.era };
    } else {
      const single = typeof target === 'string' && t.args.length === 0 && !/[\s/\\]/.test(target.trim());
      const r = await diagnoseStdio(
        walk,
        {
          command: t.command,
          args: t.args,
          env: t.env,
          cwd: t.cwd ?? options.cwd,
          label: commandLine(t),
          notFoundHint: single ? `and no mcpServers config names a server "${t.command}"${options.config ? '' : ' (give one with --config FILE)'}` : undefined,
        },
        options.baseEnv ?? process.env,
      );
      server = r.server && { ...r.server.serverInfo, protocolVersion: r.server.protocolVersion, era: r.server.era };
    }
  } catch (err) {
    walk.fail(
      'doctor',
      walk.now(),
      'internal',
      `the doctor itself failed: ${(err as Error).message}`,
      'this is a bug in mcpkit: please report it with the command that caused it',
    );
  }
  // A server name from a config (or a bare script) is shown with the command it stands for.
  const named = t.kind === 'stdio' && !/\s/.test(t.label) && t.label !== t.command;
  const shown = t.kind === 'http' ? showUrl(t.url) : named ? `${t.label} (${commandLine(t)})` : commandLine(t);
  return finish(walk, { target: shown, transport, server }, secrets);
}

function scrubStep(s: DoctorStep, secrets: readonly string[]): DoctorStep {
  return { ...s, detail: scrub(s.detail, secrets), ...(s.fix === undefined ? {} : { fix: scrub(s.fix, secrets) }) };
}

function finish(walk: Walk, base: Pick<Diagnosis, 'target' | 'transport' | 'server'>, secrets: string[]): Diagnosis {
  const failed = walk.steps.find((s) => !s.ok);
  const d: Diagnosis = {
    ok: failed === undefined && walk.steps.length > 0,
    target: base.target,
    transport: base.transport,
    steps: walk.steps,
    ...(failed ? { failure: { step: failed.step, code: failed.code!, summary: failed.detail, fix: failed.fix ?? '' } } : {}),
    ...(base.server ? { server: base.server } : {}),
  };
  return scrubDiagnosis(d, secrets);
}
