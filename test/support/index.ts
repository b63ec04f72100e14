// The one test support module: waiting (sleep, flush, waitFor, once, within, aborted), hand-made
// promises (deferred, latch), temp directories, the manual clock for TTLs and timers, and
// compile-time type assertions (Equal, Expect), scripted model endpoints (llm.ts).
// Test files import from here, never their own copies.
export { aborted, flush, once, PATIENCE, patient, SAFETY_NET_MS, sleep, waitFor, within, type WaitOptions } from './wait.js';
export { deferred, latch, type Deferred, type Latch } from './latch.js';
export { tempDir } from './fs.js';
export { pastTinyTimeouts, trickle } from './slow-client.js';
export type { Equal, Expect } from './types.js';
export { ManualClock } from '../../src/testing/clock.js';
export { WatchedClock } from './clock.js';
// Scripted model endpoints (OpenAI Chat Completions, Anthropic Messages) for host tests.
export {
  errorTurn,
  hangTurn,
  malformedTurn,
  startScriptedAnthropic,
  startScriptedOpenAI,
  streamErrorTurn,
  textTurn,
  toolCallsTurn,
  truncatedTurn,
  type ScriptedLlm,
  type ScriptedLlmOptions,
  type ScriptedRequest,
  type ScriptedToolCall,
  type Turn,
  type TurnReply,
} from './llm.js';
// The host end-to-end tests' fixture servers and readers of what a scripted model was sent.
export {
  fixtureEntry,
  HOST_FIXTURES,
  lastUserText,
  offeredSchema,
  offeredTools,
  PIXEL,
  REPO_ROOT,
  sentToolCalls,
  sentToolResults,
  startDemoHttp,
  type SentToolResult,
} from './host.js';
// A Host between mcpkit servers over HTTP and a scripted model, recording its events.
export { startLoopRig, type LoopRig, type LoopRigOptions } from './host-loop.js';
// The stdio backend of the gateway tests.
export { gatewayBackend } from './gateway.js';
export { modernToolCallHeaders } from './modern-http.js';
