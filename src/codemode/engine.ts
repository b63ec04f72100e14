// The sandbox's JavaScript engine: QuickJS compiled to WebAssembly (the optional peer packages
// quickjs-emscripten-core and @jitl/quickjs-wasmfile-release-sync), loaded the first time code
// mode needs it, so that nobody who leaves code mode off loads or installs it. The WebAssembly
// module is compiled once per thread; an instance (its own linear memory, capped) is made for a
// run, and kept for the next only when the run ended cleanly (runner.ts): a run stopped mid-job
// takes its instance with it, so no broken engine is ever entered again.
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';

import { SandboxUnavailableError } from './limits.js';

export { SandboxUnavailableError };

export interface SandboxEngine {
  /**
   * A fresh engine instance with its own WebAssembly memory, which cannot grow past the
   * engine's own needs plus `heapBytes`: the hard ceiling under QuickJS's memory limit (that
   * limit's accounting misses some allocations in this build, the memory's maximum misses none).
   */
  instance(heapBytes: number): Promise<QuickJSWASMModule>;
}

/** What the engine itself takes before a program allocates anything: its initial memory (16 MiB). */
const ENGINE_BYTES = 16 * 1024 * 1024;
const PAGE = 64 * 1024;

let loading: Promise<SandboxEngine> | undefined;
let checking: Promise<void> | undefined;

/**
 * Whether the engine's packages can be loaded here (the host checks before it starts workers
 * that load them); rejects with a SandboxUnavailableError when they cannot.
 */
export function checkSandboxEngine(): Promise<void> {
  checking ??= Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-wasmfile-release-sync')]).then(
    () => undefined,
    (err: unknown) => {
      checking = undefined;
      throw new SandboxUnavailableError(err);
    },
  );
  return checking;
}

async function load(): Promise<SandboxEngine> {
  const [core, variantModule, { createRequire }, { readFile }] = await Promise.all([
    import('quickjs-emscripten-core'),
    import('@jitl/quickjs-wasmfile-release-sync'),
    import('node:module'),
    import('node:fs/promises'),
  ]);
  const base = (variantModule as { default?: unknown }).default ?? variantModule;
  const wasmPath = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const wasmModule = await WebAssembly.compile(await readFile(wasmPath));
  // Emscripten's own console output (an abort message) is not the host's to print.
  const quiet = () => {};
  return {
    instance: (heapBytes) => {
      const maximum = Math.ceil((ENGINE_BYTES + heapBytes) / PAGE);
      const wasmMemory = new WebAssembly.Memory({ initial: ENGINE_BYTES / PAGE, maximum });
      const variant = core.newVariant(base as QuickJSSyncVariant, { wasmModule, wasmMemory, emscriptenModule: { print: quiet, printErr: quiet } as never });
      return core.newQuickJSWASMModuleFromVariant(variant);
    },
  };
}

/** The engine, loaded once; rejects with a SandboxUnavailableError when its packages are missing. */
export function loadSandboxEngine(): Promise<SandboxEngine> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined;
    throw new SandboxUnavailableError(err);
  });
  return loading;
}
