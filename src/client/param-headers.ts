import type { JsonRpcMessage } from '../jsonrpc/messages.js';
import { argumentAt, encodeHeaderValue, headerParamsOf, type HeaderParam } from '../protocol/headers.js';
import type { Tool } from '../protocol/types.js';
import type { SendOptions, Transport } from '../engine/transport.js';

/**
 * The `x-mcp-header` parameters of the tools the client has seen (SEP-2243), so that a
 * `tools/call` can mirror those arguments into `Mcp-Param-*` headers.
 */
export class ToolHeaderBook {
  private readonly params = new Map<string, HeaderParam[]>();

  /**
   * Notes a tools/list page and returns the tools to expose: those whose annotations are
   * invalid are dropped when `strict` (HTTP clients MUST), each with a warning.
   */
  learn(tools: Tool[], strict: boolean, warn: (message: string) => void): Tool[] {
    const kept: Tool[] = [];
    for (const tool of tools) {
      const found = headerParamsOf(tool?.inputSchema);
      if (typeof found === 'string') {
        this.params.delete(tool.name);
        if (strict) {
          warn(`Dropped tool "${tool.name}" from tools/list: its x-mcp-header annotations are invalid (${found})`);
          continue;
        }
      } else if (found.length > 0) this.params.set(tool.name, found);
      else this.params.delete(tool.name);
      kept.push(tool);
    }
    return kept;
  }

  /**
   * The `Mcp-Param-*` headers for a tools/call message, which the caller knows to be a
   * 2026-07-28 one (undefined for any other method).
   */
  headersFor(m: JsonRpcMessage): Record<string, string> | undefined {
    // Most servers annotate no tool: then this costs one size check per message.
    if (this.params.size === 0 || !('method' in m) || m.method !== 'tools/call') return undefined;
    const name = m.params?.name;
    const defs = typeof name === 'string' ? this.params.get(name) : undefined;
    if (!defs) return undefined;
    const out: Record<string, string> = {};
    for (const p of defs) {
      const v = argumentAt(m.params?.arguments, p.path);
      // Null or absent: no header (the spec); objects cannot be mirrored at all.
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[`mcp-param-${p.header.toLowerCase()}`] = encodeHeaderValue(v);
    }
    return out;
  }

  clear(): void {
    this.params.clear();
  }
}

/** The send options of a 2026-07-28 message without extra headers (shared, never modified). */
const MODERN_SEND: SendOptions = Object.freeze({ era: 'modern' });

/** How a 2026-07-28 message is sent: its era, and its tool's `Mcp-Param-*` headers if any. */
export function modernSendOptions(book: ToolHeaderBook, m: JsonRpcMessage): SendOptions {
  const headers = book.headersFor(m);
  return headers === undefined ? MODERN_SEND : { era: 'modern', headers };
}

/**
 * Stands between the engine and the user's transport to add per-message send options the
 * engine does not know about (the engine passes only `relatedRequestId`): what the client
 * knows a message is (its era) and the headers that go with it. Everything else goes straight
 * through, including the callbacks the engine installs.
 */
export class HeaderingTransport implements Transport {
  onmessage?: Transport['onmessage'];
  ondecoded?: Transport['ondecoded'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onrequestlost?: Transport['onrequestlost'];

  constructor(
    readonly inner: Transport,
    private readonly optionsFor: (m: JsonRpcMessage) => SendOptions | undefined,
  ) {}

  start(): Promise<void> {
    this.inner.onmessage = (frame, info) => this.onmessage?.(frame, info);
    this.inner.ondecoded = (decoded, info) => this.ondecoded?.(decoded, info);
    this.inner.onclose = (reason) => this.onclose?.(reason);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onrequestlost = (id, error) => this.onrequestlost?.(id, error);
    return this.inner.start();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    const extra = Array.isArray(message) ? undefined : this.optionsFor(message);
    if (extra === undefined) return this.inner.send(message, options);
    if (options === undefined) return this.inner.send(message, extra);
    const headers = extra.headers === undefined ? options.headers : { ...options.headers, ...extra.headers };
    return this.inner.send(message, { ...options, ...extra, headers });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
