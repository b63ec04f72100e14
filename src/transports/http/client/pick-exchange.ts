// Which HTTP stack a client transport sends through (see ./exchange.ts).
import { fetchExchange, type HttpExchange } from './exchange.js';

/**
 * node:http lives in a module of its own, loaded on first use through a specifier held in a
 * variable: bundlers (for browsers, Workers) do not follow such an import, so `mcpkit/client`
 * stays as small as it was there. Where the file is missing (mcpkit bundled into a Node
 * program), the global fetch is used, as on every other runtime.
 */
const NODE_EXCHANGE = './node-exchange.js';
let nodeModule: Promise<{ nodeExchangeFor(url: URL): HttpExchange | undefined } | undefined> | undefined;

/**
 * The exchange a transport uses: over the caller's `fetch` when given one; else, on Node,
 * node:http when node-exchange.ts finds it usable for this URL; else the global `fetch`.
 */
export function pickExchange(url: URL, f: typeof fetch | undefined): HttpExchange {
  if (f) return fetchExchange(f);
  const viaFetch = fetchExchange(globalThis.fetch.bind(globalThis));
  if (typeof globalThis.process?.getBuiltinModule !== 'function') return viaFetch;
  let chosen: HttpExchange | undefined;
  const loading = (nodeModule ??= import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_EXCHANGE).catch(() => undefined)).then(
    (m) => (chosen = m?.nodeExchangeFor(url) ?? viaFetch),
  );
  return (method, u, headers, body, signal) =>
    chosen ? chosen(method, u, headers, body, signal) : loading.then((exchange) => exchange(method, u, headers, body, signal));
}
