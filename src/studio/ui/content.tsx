// Results as a person reads them: text (pretty when it is JSON), images and audio (data: URLs,
// the only kind of URL the page loads), resource links, embedded resources, structured output
// with its check against the tool's outputSchema, and errors. The raw JSON is one click away.
import { useState } from 'preact/hooks';
import type { CallOutcome } from '../api-types.js';

export function Json({ value, class: cls }: { value: unknown; class?: string }) {
  return <pre class={`json ${cls ?? ''}`}>{JSON.stringify(value, null, 2)}</pre>;
}

function prettyText(text: string): string {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}

type Block = Record<string, unknown> & { type?: string };

/** Only base64 and a plain media type go into a data: URL. */
function dataUrl(mime: unknown, data: unknown, kind: 'image' | 'audio'): string | undefined {
  if (typeof mime !== 'string' || typeof data !== 'string') return undefined;
  if (!new RegExp(`^${kind}/[\\w.+-]+$`).test(mime) || !/^[A-Za-z0-9+/=\s]*$/.test(data)) return undefined;
  return `data:${mime};base64,${data.replace(/\s/g, '')}`;
}

export function ContentBlock({ block, onOpenUri }: { block: Block; onOpenUri?: (uri: string) => void }) {
  switch (block.type) {
    case 'text':
      return <pre class="text-block">{prettyText(String(block.text ?? ''))}</pre>;
    case 'image': {
      const src = dataUrl(block.mimeType, block.data, 'image');
      return src ? (
        <img class="image-block" src={src} alt={`${String(block.mimeType)} from the server`} />
      ) : (
        <div class="error-text">An image block with a bad mimeType or data</div>
      );
    }
    case 'audio': {
      const src = dataUrl(block.mimeType, block.data, 'audio');
      // biome-ignore lint/a11y/useMediaCaption: server audio has no captions to offer
      return src ? <audio class="audio-block" controls src={src} /> : <div class="error-text">An audio block with a bad mimeType or data</div>;
    }
    case 'resource_link':
      return (
        <div class="link-block">
          <span class="badge">link</span> <strong>{String(block.name ?? block.title ?? '')}</strong> <code>{String(block.uri)}</code>
          {block.mimeType ? <span class="muted"> {String(block.mimeType)}</span> : null}
          {block.description ? <div class="desc">{String(block.description)}</div> : null}
          {onOpenUri ? (
            <button type="button" class="small" onClick={() => onOpenUri(String(block.uri))}>
              Read it
            </button>
          ) : null}
        </div>
      );
    case 'resource':
      return <ResourceContents contents={[block.resource as Block]} />;
    default:
      return <Json value={block} />;
  }
}

export function ResourceContents({ contents }: { contents: Block[] }) {
  return (
    <div class="contents">
      {contents.map((c, i) => (
        <div class="resource-block" key={i}>
          <div class="muted">
            <code>{String(c?.uri ?? '')}</code> {c?.mimeType ? String(c.mimeType) : ''}
          </div>
          {typeof c?.text === 'string' ? (
            <pre class="text-block">{prettyText(c.text)}</pre>
          ) : typeof c?.blob === 'string' ? (
            dataUrl(c.mimeType, c.blob, 'image') ? (
              <img class="image-block" src={dataUrl(c.mimeType, c.blob, 'image')} alt={String(c.uri)} />
            ) : (
              <div class="muted">binary, {Math.round((c.blob.length * 3) / 4)} bytes</div>
            )
          ) : (
            <Json value={c} />
          )}
        </div>
      ))}
    </div>
  );
}

export function Outcome({ outcome, onOpenUri }: { outcome: CallOutcome; onOpenUri?: (uri: string) => void }) {
  const [raw, setRaw] = useState(false);
  const ms = `${Math.round(outcome.durationMs)} ms`;
  if (outcome.error) {
    return (
      <div class="outcome error" role="status">
        <div class="outcome-head">
          <span class="badge bad">{outcome.cancelled ? 'cancelled' : outcome.error.code !== undefined ? `error ${outcome.error.code}` : 'failed'}</span>
          <span class="muted">{ms}</span>
        </div>
        <div class="error-text">{outcome.error.message}</div>
        {outcome.error.data !== undefined ? <Json value={outcome.error.data} /> : null}
      </div>
    );
  }
  const r = (outcome.result ?? {}) as Record<string, unknown>;
  const content = Array.isArray(r.content) ? (r.content as Block[]) : [];
  return (
    <div class={`outcome${r.isError ? ' error' : ''}`} role="status">
      <div class="outcome-head">
        {r.isError ? <span class="badge bad">isError</span> : <span class="badge good">result</span>}
        <span class="muted">{ms}</span>
        {outcome.outputCheck ? (
          <span class={`badge ${outcome.outputCheck.ok ? 'good' : 'bad'}`} title={outcome.outputCheck.message}>
            {outcome.outputCheck.ok ? 'structured output matches outputSchema' : 'structured output does not match outputSchema'}
          </span>
        ) : null}
        <button type="button" class="link" onClick={() => setRaw(!raw)}>
          {raw ? 'rendered' : 'raw JSON'}
        </button>
      </div>
      {outcome.outputCheck && !outcome.outputCheck.ok ? <div class="error-text">{outcome.outputCheck.message}</div> : null}
      {raw ? (
        <Json value={r} />
      ) : (
        <>
          {content.map((b, i) => (
            <ContentBlock key={i} block={b} onOpenUri={onOpenUri} />
          ))}
          {r.structuredContent !== undefined ? (
            <div>
              <div class="section-title">structuredContent</div>
              <Json value={r.structuredContent} />
            </div>
          ) : null}
          {content.length === 0 && r.structuredContent === undefined ? <Json value={r} /> : null}
        </>
      )}
    </div>
  );
}
