// Types for scripts/structure.mjs, so test/structure/structure.test.ts can import it.
export const LAYERS: readonly string[];
export const TOP: string;
export const MAX_LINES: number;

export interface Allowed {
  cycles: string[][];
  upward: { from: string; to: string }[];
  long: string[];
  exportStar?: string[];
}
export const ALLOWED: Allowed;

export interface Report {
  files: string[];
  folders: string[];
  edgeCount: number;
  folderEdges: Map<string, Set<string>>;
  pairs: string[][];
  cycles: { files: string[]; example: string[]; allowed: boolean }[];
  upward: { from: string; to: string; fromLayer: string; toLayer: string; allowed: boolean }[];
  long: { file: string; lines: number; allowed: boolean }[];
  exportStar: { file: string; allowed: boolean }[];
  unknownFolders: string[];
  unresolved: string[];
}

export function layerOf(file: string): string;
export function analyze(root: string, options?: { srcDir?: string; allowed?: Allowed; maxLines?: number; surfaces?: readonly string[] }): Report;
export function violations(report: Report): string[];
export function staleEntries(report: Report, allowed?: Allowed): string[];

export const LAYER_NOTES: ReadonlyArray<readonly [string, string]>;
export const SURFACES: readonly string[];
export const LAYER_MARKER: string;
export const LAYER_DOCS: readonly string[];
export function layerTree(): string;
export function withLayerTree(text: string, tree?: string): string | undefined;
