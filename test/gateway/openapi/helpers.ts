// A local stand-in for the APIs the specs describe: a node:http server on 127.0.0.1:0 that
// records every request (method, path, query, headers, body) and answers with what the test says.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { OpenApiDocument } from '../../../src/gateway/openapi/load.js';
import { ROOT } from '../../cli/helpers.js';

export interface Recorded {
  method: string;
  /** The request target exactly as it arrived (before any parsing). */
  target: string;
  path: string;
  query: URLSearchParams;
  /** The raw query string, to check its exact encoding. */
  rawQuery: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Respond = (req: Recorded, res: ServerResponse) => void;

export interface ApiServer {
  url: string;
  requests: Recorded[];
  /** Resolves with the next request to arrive. */
  next(): Promise<Recorded>;
  close(): Promise<void>;
}

/** Answers JSON. */
export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

export async function apiServer(respond: Respond): Promise<ApiServer> {
  const requests: Recorded[] = [];
  const waiting: ((r: Recorded) => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const r: Recorded = {
        method: req.method ?? '',
        target: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search.slice(1),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      for (const w of waiting.splice(0)) w(r);
      respond(r, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    next: () => new Promise((r) => waiting.push(r)),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const FIXTURES = join(ROOT, 'test/fixtures/openapi');

/** A spec from test/fixtures/openapi (a .gz one is unpacked). */
export function fixture(name: string): OpenApiDocument {
  const raw = readFileSync(join(FIXTURES, name));
  return JSON.parse((name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as OpenApiDocument;
}

/** The text of a result's first content block. */
export function textOf(result: { content: unknown[] }): string {
  const block = result.content[0] as { type: string; text?: string };
  return block.type === 'text' ? (block.text ?? '') : '';
}
