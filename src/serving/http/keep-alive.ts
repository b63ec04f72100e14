/** Something that sends an SSE keep-alive comment when told to. */
export interface KeepAliveTarget {
  keepAlivePing(): void;
}

interface Group {
  members: Set<KeepAliveTarget>;
  timer: ReturnType<typeof setInterval>;
}

const groups = new Map<number, Group>();

/**
 * One interval per keep-alive period for all open SSE streams, rather than a timer per stream:
 * most streams are POST responses that end in the tick they open, and a setInterval plus
 * clearInterval per response cost more than a Set add and delete. A stream that joins just
 * before a tick gets its first comment early, which is harmless. The interval is unref'd and
 * stops itself at a tick that finds no stream, so an idle server keeps no timer running.
 */
export function startKeepAlive(target: KeepAliveTarget, periodMs: number): void {
  let group = groups.get(periodMs);
  if (!group) {
    const members = new Set<KeepAliveTarget>();
    const timer = setInterval(() => {
      if (members.size === 0) {
        clearInterval(timer);
        groups.delete(periodMs);
        return;
      }
      for (const m of members) m.keepAlivePing();
    }, periodMs);
    timer.unref?.();
    group = { members, timer };
    groups.set(periodMs, group);
  }
  group.members.add(target);
}

export function stopKeepAlive(target: KeepAliveTarget, periodMs: number): void {
  groups.get(periodMs)?.members.delete(target);
}
