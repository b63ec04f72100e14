// Replay with the ids the live server makes. A recorded session carries values its server made
// up (a task id, a pagination cursor, the id of something a tool created), and later requests of
// the session repeat them: sent as recorded to another server (or the same one restarted), they
// name nothing. So as each call is replayed, its recorded and live answers are walked side by side
// and each value under a key named like an id (`id`, `taskId`, `ticket_id`, `nextCursor`...) that
// differs is paired, recorded → live; the later requests are sent with the live values, and the
// recorded answers are read with them too, so a fresh id is not reported as a difference.
// Shared by the page (ui/sessions.tsx), which runs the replay call by call.

/** Keys whose values a server makes up. */
const ID_KEY = /^(id|.*Id|.*_id|.*Cursor|cursor)$/;
/** Ids this long are also replaced inside longer strings (a text that names the id); shorter ones only whole. */
const SUBSTRING_MIN = 8;

export interface MappedId {
  recorded: string;
  live: string;
  /** Where it was found in the answer (`structuredContent.ticketId`). */
  path: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ReplayIds {
  private readonly ids = new Map<string, MappedId>();

  get size(): number {
    return this.ids.size;
  }

  list(): MappedId[] {
    return [...this.ids.values()];
  }

  /** Pairs the ids of one call's recorded and live answers (results, or errors' data); returns the new pairs. */
  learn(recorded: unknown, live: unknown): MappedId[] {
    const found: MappedId[] = [];
    const walk = (a: unknown, b: unknown, path: string): void => {
      if (Array.isArray(a) && Array.isArray(b)) {
        for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`);
        return;
      }
      if (!isObject(a) || !isObject(b)) return;
      for (const [k, v] of Object.entries(a)) {
        const p = path ? `${path}.${k}` : k;
        const w = b[k];
        if (ID_KEY.test(k) && typeof v === 'string' && typeof w === 'string') {
          if (v !== w && v !== '' && !this.ids.has(v)) {
            const m = { recorded: v, live: w, path: p };
            this.ids.set(v, m);
            found.push(m);
          }
        } else walk(v, w, p);
      }
    };
    walk(recorded, live, '');
    return found;
  }

  /** `value` with each recorded id replaced by the live one; `used` lists the ids replaced. */
  apply<T>(value: T): { value: T; used: MappedId[] } {
    if (this.ids.size === 0) return { value, used: [] };
    const used = new Set<MappedId>();
    const long = [...this.ids.values()].filter((m) => m.recorded.length >= SUBSTRING_MIN).sort((x, y) => y.recorded.length - x.recorded.length);
    const str = (s: string): string => {
      const whole = this.ids.get(s);
      if (whole) {
        used.add(whole);
        return whole.live;
      }
      let out = s;
      for (const m of long) {
        if (!out.includes(m.recorded)) continue;
        out = out.split(m.recorded).join(m.live);
        used.add(m);
      }
      return out;
    };
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return str(v);
      if (Array.isArray(v)) return v.map(walk);
      if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return { value: walk(value) as T, used: [...used] };
  }
}
