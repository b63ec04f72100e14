// Types for scripts/entry-names.mjs, so test/entries/exports.test.ts can import it.
export function entryNames(root: string): Record<string, { values: string[]; types: string[] }>;
