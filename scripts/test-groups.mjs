// Which test files are fast (in-process: `npm test`) and which are end to end (`npm run test:e2e`:
// real child processes, the built CLI, a browser, a real Redis, the packed tarball, official SDK
// servers run as children). Decided by what a file uses, so a new test lands in the right group
// without a list to keep up to date.
import { readFileSync } from 'node:fs';

/** Folders whose tests drive real processes, a browser or outside services as a whole. */
const E2E_DIRS = ['test/cli/', 'test/interop/', 'test/runtimes/', 'test/examples/', 'test/host/e2e/', 'test/studio/', 'test/state/redis/'];

/** What in a file's text marks it as end to end. */
const E2E_MARKS = [
  /from 'node:child_process'/,
  /playwright/,
  /ioredis|redis-helpers|RedisBus|RedisSessionStore|RedisEventStore|RedisAuthorizationStore/,
  /\bCLI_LINE\b|\bOFFICIAL_LINE\b|\bgatewayBackend\b|startListeningProcess|mcpkitProcess/,
  /StdioClientTransport\(|connectStdio\(|connect\(\s*['"`](?:node|npx|tsx)\b/,
  /startStreamableServer|startSseServer|official-servers/,
  /dist\/cli\/main\.js/,
  // A node child started by path (a stdio server behind a pool, a mount, a bridge).
  /process\.execPath/,
  /npm pack/,
];

/** 'e2e' or 'fast' for one test file (path relative to the repository root, with forward slashes). */
export function groupOf(path) {
  const p = path.replaceAll('\\', '/');
  if (E2E_DIRS.some((d) => p.startsWith(d))) return 'e2e';
  const text = readFileSync(path, 'utf8');
  return E2E_MARKS.some((m) => m.test(text)) ? 'e2e' : 'fast';
}
