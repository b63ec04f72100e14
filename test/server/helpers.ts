// Shared helpers for the McpServer/McpClient end-to-end tests (not a test file itself).
import assert from 'node:assert/strict';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';

/** Asserts `p` rejects with a JSON-RPC error of `code` (and optionally a message match). */
export async function rejectsWithCode(p: Promise<unknown>, code: number, message?: RegExp): Promise<McpError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof McpError, `expected an McpError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, `expected code ${code}, got ${caught.code}: ${caught.message}`);
  if (message) assert.match(caught.message, message);
  return caught;
}

/** Asserts `p` rejects locally (never reached the wire) with the given kind. */
export async function rejectsLocally(p: Promise<unknown>, kind: LocalError['kind']): Promise<LocalError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LocalError, `expected a LocalError (${kind}), got ${String(caught)}`);
  assert.equal(caught.kind, kind);
  return caught;
}

/** The text of a single-text-block result. */
export function textOf(result: { content: unknown[] }): string {
  assert.equal(result.content.length, 1, `expected one content block, got ${JSON.stringify(result.content)}`);
  const block = result.content[0] as { type: string; text: string };
  assert.equal(block.type, 'text');
  return block.text;
}
