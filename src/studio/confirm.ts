// Servers the page asks to add. The studio starts on its own only what the user named on the
// command line or in a config file; a server asked for by the page (a command to run, or a URL to
// reach from this machine) is held as a pending request, shown in the page exactly as it would be
// started, and added only when the person confirms it there. The confirmation must carry the
// request's nonce: a fresh single-use value, so a confirmation is for the one request that was
// shown (not a later one under the same id) and cannot be replayed. Requests expire.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../engine/clock.js';
import { resolveTarget, type Target } from '../pool/targets.js';
import type { PendingTarget, TargetView } from './api-types.js';
import { newSecret, sameSecret } from './security.js';

/** How long a request waits for its confirmation. */
export const CONFIRM_WINDOW_MS = 5 * 60_000;
/** Requests waiting at once, at most: a page cannot pile them up. */
export const MAX_PENDING = 8;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export class StudioRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'StudioRequestError';
  }
}

/** A Target as the page sees it: values of headers and environment variables stay here. */
export function viewOf(t: Target): TargetView {
  if (t.kind === 'http') return { kind: 'http', text: t.url, headerNames: Object.keys(t.headers) };
  const words = [t.command, ...t.args].map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`));
  return { kind: 'stdio', text: words.join(' '), envNames: Object.keys(t.env), ...(t.cwd ? { cwd: t.cwd } : {}) };
}

/** A name for a server from its target: the config name, the command's base name, or the URL's host. */
export function nameFor(t: Target, taken: (name: string) => boolean): string {
  let base: string;
  if (t.kind === 'http') {
    const u = new URL(t.url);
    base = u.hostname.replace(/^\[|\]$/g, '').replace(/[^A-Za-z0-9_.-]/g, '-') + (u.port ? `-${u.port}` : '');
  } else {
    const word = [...t.args].reverse().find((a) => /\.(m?[jt]s|cjs|py)$/.test(a)) ?? t.command;
    base = (word.split(/[\\/]/).pop() ?? 'server').replace(/\.[^.]+$/, '');
  }
  if (t.label && NAME.test(t.label)) base = t.label;
  base =
    base
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 56) || 'server';
  let name = base;
  for (let i = 2; taken(name); i++) name = `${base}-${i}`;
  return name;
}

interface Held {
  view: PendingTarget;
  target: Target;
}

export class TargetRequests {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly clock: Clock,
    private readonly resolveOptions: { cwd: string; home?: string; config?: string },
    private readonly events: { added(p: PendingTarget): void; done(id: string): void },
  ) {}

  list(): PendingTarget[] {
    this.expire();
    return [...this.held.values()].map((h) => h.view);
  }

  /** Holds a page's request; nothing is started. Throws a StudioRequestError for a bad one. */
  request(spec: unknown, wantedName: unknown, taken: (name: string) => boolean): PendingTarget {
    this.expire();
    if (typeof spec !== 'string' || spec.trim() === '') throw new StudioRequestError(400, 'Give a URL or a command line to add');
    if (spec.length > 4096) throw new StudioRequestError(400, 'That target is too long');
    if (this.held.size >= MAX_PENDING) throw new StudioRequestError(429, 'Too many servers wait for confirmation: confirm or reject those first');
    let target: Target;
    try {
      target = resolveTarget(spec, this.resolveOptions);
    } catch (err) {
      throw new StudioRequestError(400, err instanceof Error ? err.message : String(err));
    }
    let name: string;
    if (wantedName !== undefined && wantedName !== '') {
      if (typeof wantedName !== 'string' || !NAME.test(wantedName)) throw new StudioRequestError(400, 'A server name is 1 to 64 letters, digits, _ . or -');
      if (taken(wantedName)) throw new StudioRequestError(409, `A server is already named "${wantedName}"`);
      name = wantedName;
    } else name = nameFor(target, (n) => taken(n) || [...this.held.values()].some((h) => h.view.name === n));
    const view: PendingTarget = {
      id: randomUUID(),
      nonce: newSecret(),
      name,
      target: viewOf(target),
      warning:
        target.kind === 'stdio'
          ? 'Confirming runs this command on this machine, as you, with your environment.'
          : 'Confirming makes this machine connect to this address (it may be on your private network).',
      expires: this.clock.now() + CONFIRM_WINDOW_MS,
    };
    this.held.set(view.id, { view, target });
    this.events.added(view);
    return view;
  }

  /** The confirmed request's name and target; throws unless the id and its nonce match a live request. */
  confirm(id: unknown, nonce: unknown): { name: string; target: Target } {
    this.expire();
    const h = typeof id === 'string' ? this.held.get(id) : undefined;
    if (!h) throw new StudioRequestError(404, 'No such request waits for confirmation (it may have expired)');
    if (typeof nonce !== 'string' || !sameSecret(nonce, h.view.nonce)) throw new StudioRequestError(403, 'The confirmation does not match the request shown');
    this.drop(h.view.id);
    return { name: h.view.name, target: h.target };
  }

  reject(id: unknown): boolean {
    if (typeof id !== 'string' || !this.held.has(id)) return false;
    this.drop(id);
    return true;
  }

  private drop(id: string): void {
    this.held.delete(id);
    this.events.done(id);
  }

  private expire(): void {
    const now = this.clock.now();
    for (const [id, h] of this.held) if (h.view.expires <= now) this.drop(id);
  }
}
