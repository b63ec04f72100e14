// The command palette (Ctrl-K): type to filter, arrows to move, Enter to run, Escape to close.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Command {
  id: string;
  label: string;
  hint?: string;
  run: () => void;
}

export function Palette({ commands, onClose }: { commands: Command[]; onClose: () => void }) {
  const [q, setQ] = useState('');
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = commands.filter((c) => words.every((w) => c.label.toLowerCase().includes(w)));
  const run = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    c.run();
  };
  return (
    <div class="overlay">
      <div class="palette" role="dialog" aria-modal="true" aria-label="Command palette">
        <input
          ref={input}
          type="search"
          aria-label="Command"
          placeholder="Type a command or a server name"
          value={q}
          onInput={(e) => {
            setQ((e.currentTarget as HTMLInputElement).value);
            setAt(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') onClose();
            else if (e.key === 'ArrowDown') setAt(Math.min(shown.length - 1, at + 1));
            else if (e.key === 'ArrowUp') setAt(Math.max(0, at - 1));
            else if (e.key === 'Enter') run(shown[at]);
            else return;
            e.preventDefault();
          }}
        />
        <ul>
          {shown.map((c, i) => (
            <li key={c.id} class={i === at ? 'selected' : ''}>
              <button type="button" class="palette-item" tabIndex={-1} aria-current={i === at ? 'true' : undefined} onClick={() => run(c)}>
                {c.label} {c.hint ? <span class="muted">{c.hint}</span> : null}
              </button>
            </li>
          ))}
          {shown.length === 0 ? <li class="muted">No command matches.</li> : null}
        </ul>
      </div>
    </div>
  );
}
