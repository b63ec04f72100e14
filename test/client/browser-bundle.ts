// The browser bundles the browser test loads and measures (not a test file itself): an entry
// module bundled by esbuild for platform=browser, ESM, minified, nothing external, with its
// size minified and gzipped and every module that went in.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ROOT } from '../entries/graph.js';

export interface Bundle {
  /** The single ESM file (dynamic imports inlined). */
  code: string;
  minBytes: number;
  gzipBytes: number;
  /** The source modules that went in (paths relative to the repository, or `node:...`). */
  inputs: string[];
  /** Imports the output still makes of anything outside it. */
  external: string[];
}

/** Bundles `contents` (an ES module, resolved from the repository root) for the browser. */
export async function browserBundle(contents: string, name: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents, resolveDir: ROOT, sourcefile: `${name}.ts`, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    minify: true,
    platform: 'browser',
    target: 'es2022',
    external: [],
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const file = result.outputFiles[0]!;
  const outputs = Object.values(result.metafile.outputs);
  return {
    code: file.text,
    minBytes: file.contents.byteLength,
    gzipBytes: gzipSync(file.contents, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
    external: outputs.flatMap((o) => o.imports.filter((i) => i.external === true || i.path.startsWith('node:')).map((i) => i.path)),
  };
}

/** All of mcpkit/client, exposed on `globalThis.mcpkit` for a test page. */
export const OURS_FULL = `export * as mcpkit from './src/entries/client.ts';`;
/** What an app that connects, lists and calls imports of each. */
export const OURS_APP = `export { connect } from './src/entries/client.ts';`;
export const OFFICIAL_FULL = `export * as sdk from '@modelcontextprotocol/client';`;
export const OFFICIAL_APP = `export { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';`;
