// The terminal side of the CLI: colours (only on a TTY, never with NO_COLOR), and the status
// line on stderr where progress bars are drawn; other stderr output is printed above it.
import type { ProgressInfo } from '../engine/peer.js';
import type { LoggingLevel } from '../protocol/types.js';

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const COLOURS: Style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  blue: wrap(34, 39),
  magenta: wrap(35, 39),
  cyan: wrap(36, 39),
};
const id = (s: string) => s;
const PLAIN: Style = { bold: id, dim: id, red: id, green: id, yellow: id, blue: id, magenta: id, cyan: id };

export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): Style {
  const on = !!stream.isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
  return on || env.FORCE_COLOR === '1' ? COLOURS : PLAIN;
}

/** stdout's style: results are coloured only when a person reads them. */
export const out = styleFor(process.stdout);

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * stderr, with at most one live status line (a progress bar) at the bottom on a terminal.
 * Everything else written through {@link StatusLine.print} appears above the bar; without a
 * terminal, progress is printed as plain lines instead.
 */
export class StatusLine {
  readonly tty: boolean;
  readonly style: Style;
  private line: string | undefined;
  private last: ProgressInfo | undefined;
  private started = 0;
  private frame = 0;
  private label = '';
  private waiting = '';
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = process.stderr,
    env: Record<string, string | undefined> = process.env,
  ) {
    this.tty = !!stream.isTTY && env.TERM !== 'dumb';
    this.style = styleFor(stream, env);
  }

  /** The terminal's width (80 when it does not say). */
  get columns(): number {
    return this.stream.columns || 80;
  }

  /** Writes whole lines above the status line. */
  print(text: string): void {
    const body = text.endsWith('\n') ? text : `${text}\n`;
    if (this.line === undefined) {
      this.stream.write(body);
      return;
    }
    this.stream.write(`\r\x1b[K${body}${this.line}`);
  }

  /**
   * Starts timing an operation whose progress may be shown (the label names it); `waiting` is
   * what the spinner says until progress comes.
   */
  begin(label: string, waiting = 'waiting for the server…'): void {
    this.label = label;
    this.waiting = waiting;
    this.started = Date.now();
    this.last = undefined;
    if (!this.tty) return;
    // A spinner (and the elapsed time) keep moving between progress notifications, and show
    // that something is happening when a slow operation reports none.
    this.stopTicker();
    this.ticker = setInterval(() => {
      if (this.last || Date.now() - this.started >= 400) this.draw(this.spin());
    }, 100);
    this.ticker.unref?.();
  }

  private spin(): string {
    return this.style.cyan(SPINNER[this.frame++ % SPINNER.length]);
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  progress(p: ProgressInfo): void {
    this.last = p;
    if (!this.tty) {
      const of = p.total !== undefined ? `${fmtNum(p.progress)}/${fmtNum(p.total)} (${percent(p)}%)` : fmtNum(p.progress);
      this.stream.write(`progress ${of}${p.message ? ` ${p.message}` : ''}\n`);
      return;
    }
    this.draw(this.spin());
  }

  /** Ends the operation: a drawn bar is left in place, marked done or failed. */
  end(ok: boolean): void {
    this.stopTicker();
    if (this.line === undefined) return;
    if (!this.last) {
      this.clear(); // only the waiting spinner was shown
      return;
    }
    this.draw(ok ? this.style.green('✔') : this.style.red('✖'));
    this.stream.write('\n');
    this.line = undefined;
  }

  /** Removes the status line (before prompting the user, say); progress redraws it. */
  clear(): void {
    this.stopTicker();
    if (this.line === undefined) return;
    this.stream.write('\r\x1b[K');
    this.line = undefined;
  }

  private draw(mark: string): void {
    const p = this.last;
    const s = this.style;
    const cols = this.stream.columns || 80;
    const elapsed = s.dim(`${((Date.now() - this.started) / 1000).toFixed(1)}s`);
    let line: string;
    if (!p) {
      line = `${mark} ${s.bold(this.label)}  ${s.dim(this.waiting)}  ${elapsed}`;
    } else if (p.total !== undefined && p.total > 0) {
      const width = Math.max(10, Math.min(30, cols - 50));
      const frac = Math.min(1, Math.max(0, p.progress / p.total));
      const full = Math.round(frac * width);
      const bar = s.cyan('█'.repeat(full)) + s.dim('░'.repeat(width - full));
      const count = `${fmtNum(p.progress)}/${fmtNum(p.total)}`;
      line = `${mark} ${s.bold(this.label)} ${bar} ${count} ${String(percent(p)).padStart(3)}%  ${elapsed}`;
    } else {
      line = `${mark} ${s.bold(this.label)} ${fmtNum(p.progress)}  ${elapsed}`;
    }
    if (p?.message) {
      // Keep the whole line within the terminal so \r redraws one row.
      const room = cols - visibleLength(line) - 3;
      if (room > 5) line += `  ${s.dim(truncate(p.message, room))}`;
    }
    this.line = line;
    this.stream.write(`\r\x1b[K${line}`);
  }
}

function percent(p: ProgressInfo): number {
  return p.total ? Math.round(Math.min(1, p.progress / p.total) * 100) : 0;
}

function fmtNum(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '');
}

export function visibleLength(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '').length;
}

export function truncate(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1))}…`;
}

const LEVEL_STYLE: Record<LoggingLevel, keyof Style> = {
  debug: 'dim',
  info: 'blue',
  notice: 'cyan',
  warning: 'yellow',
  error: 'red',
  critical: 'red',
  alert: 'red',
  emergency: 'red',
};

/** A `notifications/message` as one line: `[info] fixture: text`. */
export function formatLog(params: { level?: unknown; data?: unknown; logger?: unknown } | undefined, style: Style): string {
  const level = (typeof params?.level === 'string' ? params.level : 'info') as LoggingLevel;
  const paint = style[LEVEL_STYLE[level] ?? 'blue'];
  const data = params?.data;
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  const logger = typeof params?.logger === 'string' ? `${params.logger}: ` : '';
  return `${paint(`[${level}]`)} ${logger}${text}`;
}
