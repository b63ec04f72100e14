// The stdio backend the gateway tests put behind a gateway (test/fixtures/gateway/backend.ts).
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BACKEND = fileURLToPath(new URL('../fixtures/gateway/backend.ts', import.meta.url));

/** A stdio mcpServers entry for the fixture; `tag` keeps its era-cache entry to one test. */
export function gatewayBackend(tag: string, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', BACKEND, tag], cwd: ROOT, env, ...extra };
}
