export interface StudioUiSizes {
  js: number;
  css: number;
  jsGzip: number;
  cssGzip: number;
}
export function buildStudioUi(outdir: string, options?: { minify?: boolean }): Promise<StudioUiSizes>;
