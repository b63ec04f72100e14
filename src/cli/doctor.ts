// The connection doctor on the command line: its options from the command's values, and the
// diagnosis as text (every step for `mcpkit doctor`, the failing one for `mcpkit inspect`).
import { diagnose } from '../host/doctor/diagnose.js';
import type { Diagnosis, DoctorStep } from '../host/doctor/types.js';
import { envFrom, flag, headersFrom, int, str, strs } from './args.js';
import type { CliIo } from './io.js';
import type { Style } from './term.js';

type Values = Parameters<typeof str>[0];

/**
 * Runs the doctor on `spec` with the target options of the command line. `registerByDefault`
 * false (inspect): a client is registered with the authorization server only when a redirect URI
 * was given, since the user asked for a summary, not for a registration.
 */
export function runDoctor(spec: string, values: Values, io: CliIo, registerByDefault = true): Promise<Diagnosis> {
  const redirectPort = str(values, 'redirect-port');
  const asked = str(values, 'redirect-uri') !== undefined || redirectPort !== undefined;
  return diagnose(spec, {
    config: str(values, 'config'),
    headers: headersFrom(strs(values, 'header')),
    env: envFrom(strs(values, 'env')),
    cwd: io.cwd,
    home: io.env.HOME || undefined,
    baseEnv: io.env,
    // --timeout 0 waits as long as timers can.
    timeoutMs: int(values, 'timeout', 30, 0, 86_400) * 1000 || 2 ** 31 - 1,
    slowMs: int(values, 'slow', 5, 1, 86_400) * 1000,
    origin: str(values, 'origin'),
    redirectUri: str(values, 'redirect-uri') ?? (redirectPort ? `http://127.0.0.1:${redirectPort}/callback` : undefined),
    register: !flag(values, 'no-register') && (registerByDefault || asked),
  });
}

function ms(n: number): string {
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** One step: mark, name, what was seen, and its fix under it. */
function stepText(s: DoctorStep, style: Style): string {
  const mark = s.ok ? style.green('✔') : style.red('✖');
  let text = `${mark} ${s.step.padEnd(20)} ${s.detail} ${style.dim(`(${ms(s.ms)})`)}`;
  if (!s.ok) text += `\n  ${' '.repeat(20)} ${style.yellow('fix:')} ${s.fix ?? ''}${s.code ? style.dim(`  [${s.code}]`) : ''}`;
  return text;
}

/** Every step, then the verdict. */
export function renderDiagnosis(d: Diagnosis, style: Style): string {
  const lines = [`${style.bold('Connection doctor')}: ${d.target} ${style.dim(`(${d.transport})`)}`, ...d.steps.map((s) => stepText(s, style))];
  if (d.failure) lines.push('', failureText(d, style));
  else if (d.ok)
    lines.push('', style.green(`Every step works${d.server?.name ? `: ${d.server.name} ${d.server.version ?? ''} speaks ${d.server.protocolVersion}` : ''}.`));
  return lines.join('\n');
}

/** The failing step, its summary and its fix (what `inspect` shows when it cannot connect). */
export function failureText(d: Diagnosis, style: Style): string {
  const f = d.failure;
  if (!f) return style.dim('The connection doctor found every step working this time: the failure may come and go.');
  return [
    `${style.red(style.bold('Failing step:'))} ${f.step} ${style.dim(`[${f.code}]`)}`,
    `  ${f.summary}`,
    `${style.yellow(style.bold('Fix:'))} ${f.fix}`,
  ].join('\n');
}

/** Options `mcpkit doctor` (and inspect, for its diagnosis) take besides the target ones. */
export const DOCTOR_OPTIONS = {
  slow: { type: 'string' },
  origin: { type: 'string' },
  'redirect-uri': { type: 'string' },
  'no-register': { type: 'boolean' },
} as const;

export const DOCTOR_HELP = `Doctor options:
  --slow SECONDS         an answer later than this is a slow start (default 5)
  --origin URL           check CORS for a browser client on this origin (a web studio's)
  --redirect-uri URI     the redirect URI a sign-in would use, checked with the authorization
                         server (default http://127.0.0.1:33418/callback)
  --no-register          do not register a client to check the redirect URI
`;
