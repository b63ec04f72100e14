// Types for scripts/stale-paths.mjs, so test/structure/structure.test.ts can import it.
export function stalePaths(root: string): Array<{ file: string; line: number; path: string }>;
