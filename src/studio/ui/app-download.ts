// `ui/download-file`: a view in its sandbox cannot download, so it asks the host, which shows
// what would be saved (names, types, sizes) and saves it only when you say so. Contents are
// embedded resources (text or base64 blob) or resource links, read through the view's server.

export interface ViewFile {
  name: string;
  mimeType: string;
  /** Embedded: the bytes (text, or base64 in `blob`); a link: its uri, read when saved. */
  text?: string;
  blob?: string;
  link?: string;
  size?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A file name from a URI: its last path segment, made safe; `file` when there is none. */
export function fileName(uri: string, name?: unknown): string {
  let base = typeof name === 'string' && name !== '' ? name : '';
  if (!base) {
    try {
      base = decodeURIComponent(new URL(uri).pathname.split('/').filter(Boolean).at(-1) ?? '');
    } catch {
      base = uri.split('/').at(-1) ?? '';
    }
  }
  const safe = base
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 120);
  return safe || 'file';
}

/** The files of a ui/download-file request; throws (a message for the view) when they are not well formed. */
export function filesOf(params: Record<string, unknown>): ViewFile[] {
  const contents = params.contents;
  if (!Array.isArray(contents) || contents.length === 0) throw new Error('ui/download-file needs contents: embedded resources or resource links');
  return contents.map((c): ViewFile => {
    if (isObject(c) && c.type === 'resource' && isObject(c.resource) && typeof c.resource.uri === 'string') {
      const r = c.resource;
      const mimeType = typeof r.mimeType === 'string' ? r.mimeType : 'application/octet-stream';
      if (typeof r.text === 'string') return { name: fileName(r.uri as string), mimeType, text: r.text, size: new TextEncoder().encode(r.text).length };
      if (typeof r.blob === 'string') return { name: fileName(r.uri as string), mimeType, blob: r.blob, size: Math.floor((r.blob.length * 3) / 4) };
    }
    if (isObject(c) && c.type === 'resource_link' && typeof c.uri === 'string')
      return { name: fileName(c.uri, c.name), mimeType: typeof c.mimeType === 'string' ? c.mimeType : 'application/octet-stream', link: c.uri };
    throw new Error('each content must be an embedded resource (text or blob) or a resource link');
  });
}

function bytes(f: { text?: string; blob?: string }): BlobPart {
  if (f.text !== undefined) return f.text;
  const bin = atob(f.blob ?? '');
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Saves each file (a link is read first with `read`, which answers resources/read's contents). */
export async function saveFiles(files: ViewFile[], read: (uri: string) => Promise<Array<{ text?: string; blob?: string; mimeType?: string }>>): Promise<void> {
  for (const f of files) {
    const content = f.link !== undefined ? (await read(f.link))[0] : f;
    if (!content) throw new Error(`${f.link} has no contents`);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes(content)], { type: content.mimeType ?? f.mimeType }));
    a.download = f.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }
}
