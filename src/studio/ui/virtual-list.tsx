// A list that renders only the rows in view (fixed row height), so 1,000 tools or 10,000 timeline
// messages cost the same as 30. Arrow keys, Home/End move the selection; the selected row is kept
// in view. Styles are set through the DOM (element.style), which the page's CSP allows, never as
// style attributes in markup.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  render: (item: T, index: number) => ComponentChildren;
  keyOf: (item: T, index: number) => string | number;
  selected?: number;
  onSelect?: (index: number) => void;
  /** Keep the end in view while it grows (a live timeline), unless the person scrolled up. */
  follow?: boolean;
  label: string;
  className?: string;
}

const OVERSCAN = 8;

export function VirtualList<T>(p: VirtualListProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const pinnedToEnd = useRef(true);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    ro.observe(el);
    setHeight(el.clientHeight || 600);
    return () => ro.disconnect();
  }, []);

  // A growing list followed at its end stays at its end.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !p.follow || !pinnedToEnd.current) return;
    el.scrollTop = el.scrollHeight;
    setTop(el.scrollTop);
  }, [p.items.length, p.follow]);

  // The selected row in view.
  useEffect(() => {
    const el = box.current;
    if (!el || p.selected === undefined || p.selected < 0) return;
    const y = p.selected * p.rowHeight;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + p.rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = y + p.rowHeight - el.clientHeight;
  }, [p.selected, p.rowHeight]);

  const n = p.items.length;
  const first = Math.max(0, Math.floor(top / p.rowHeight) - OVERSCAN);
  const last = Math.min(n, Math.ceil((top + height) / p.rowHeight) + OVERSCAN);
  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const item = p.items[i];
    rows.push(
      <Row key={p.keyOf(item, i)} y={i * p.rowHeight} h={p.rowHeight} selected={i === p.selected} onClick={() => p.onSelect?.(i)}>
        {p.render(item, i)}
      </Row>,
    );
  }

  const onKey = (e: KeyboardEvent) => {
    if (!p.onSelect || n === 0) return;
    const cur = p.selected ?? -1;
    const page = Math.max(1, Math.floor(height / p.rowHeight) - 1);
    const to: Record<string, number> = {
      ArrowDown: Math.min(n - 1, cur + 1),
      ArrowUp: Math.max(0, cur - 1),
      PageDown: Math.min(n - 1, cur + page),
      PageUp: Math.max(0, cur - page),
      Home: 0,
      End: n - 1,
    };
    if (!(e.key in to)) return;
    e.preventDefault();
    p.onSelect(to[e.key]);
  };

  return (
    <div
      ref={box}
      class={`vlist ${p.className ?? ''}`}
      tabIndex={0}
      role="listbox"
      aria-label={p.label}
      onScroll={(e) => {
        const el = e.currentTarget as HTMLDivElement;
        pinnedToEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - p.rowHeight;
        setTop(el.scrollTop);
      }}
      onKeyDown={onKey}
    >
      <Spacer h={n * p.rowHeight} />
      {rows}
    </div>
  );
}

function Spacer({ h }: { h: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (ref.current) ref.current.style.height = `${h}px`;
  }, [h]);
  return <div ref={ref} class="vlist-spacer" />;
}

function Row(p: { y: number; h: number; selected: boolean; onClick: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.transform = `translateY(${p.y}px)`;
    el.style.height = `${p.h}px`;
  }, [p.y, p.h]);
  return (
    <div
      ref={ref}
      class={`vrow${p.selected ? ' selected' : ''}`}
      role="option"
      tabIndex={-1}
      aria-selected={p.selected}
      onClick={p.onClick}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') p.onClick();
      }}
    >
      {p.children}
    </div>
  );
}
