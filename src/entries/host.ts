// mcpkit/host: an AI application's core. `Host` connects to many MCP servers (ServerPool), offers
// their tools to a language model (OpenAI Chat Completions or Anthropic Messages, and every
// compatible server such as Ollama) and runs the model's tool calls, asking the user where the
// policy says so. docs/host.md describes it.

export { Host } from '../host/host.js';
export { Conversation } from '../host/loop/conversation.js';
export { READ_FULL_RESULT } from '../host/loop/results.js';
export { SEARCH_TOOLS } from '../host/loop/search.js';
export { DEFAULT_FIELD_WEIGHTS, ToolIndex, type ToolField, type ToolIndexOptions, type ToolRanker } from '../pool/search/tool-index.js';
export {
  type Embedder,
  EmbeddingRanker,
  type EmbeddingRankerOptions,
  EmbeddingsError,
  OpenAIEmbeddings,
  type OpenAIEmbeddingsOptions,
  toolText,
} from '../pool/search/embeddings.js';
export { stem, tokenize } from '../pool/search/tokenize.js';
export type {
  Answer,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalRequest,
  ConversationOptions,
  DeferToolsOptions,
  ElicitationRequest,
  HostEvent,
  HostEventType,
  HostInteraction,
  HostObserver,
  HostOptions,
  ModelCallInfo,
  ResultLimit,
  SamplingRequest,
  SendOptions,
  ToolCallInfo,
  ToolCallRecord,
  UserInput,
} from '../host/loop/types.js';
export { ServerPool, type ServerInfo } from '../pool/pool.js';
export type {
  InputContext,
  PoolEvent,
  PoolEventOf,
  PoolEventType,
  PoolHandlers,
  PoolOptions,
  RetryOptions,
  ServerSettings,
  ServerSpec,
  ServerState,
} from '../pool/pool-types.js';
export type { HostCallOptions, HostTool, ToolSource } from '../pool/tool-source.js';
export { ServerUnavailableError, TargetError, UnknownToolError } from '../pool/errors.js';
export {
  ModelError,
  type ModelContent,
  type ModelEvent,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelTool,
  type ModelToolCall,
  type ModelUsage,
  type ProviderContent,
} from '../host/model.js';
export { CONTEXT_WINDOWS, DEFAULT_CONTEXT_WINDOW, contextWindowOf, estimateTokens } from '../host/budget.js';
export {
  ANTHROPIC_TOOL_NAME,
  AnthropicProvider,
  OPENAI_TOOL_NAME,
  OpenAIProvider,
  ProviderConfigError,
  createProvider,
  isLoopbackUrl,
  isStrictCompatible,
  sanitizeForAnthropic,
  sanitizeForGemini,
  sanitizeForOpenAI,
  sanitizeForOpenAIStrict,
  toolNamePattern,
  type AnthropicProviderOptions,
  type JsonSchema,
  type OpenAIProviderOptions,
  type ProviderConfig,
  type ProviderHttpOptions,
} from '../host/providers/index.js';
export { DEFAULT_NAME_PATTERN, NameRegistry, assignNames, entryKey, sanitizeName, type NameEntry, type NameOptions, type PrefixPolicy } from '../pool/names.js';
export { globToRegExp, toolFilter } from '../pool/tool-filter.js';
export type { Target } from '../pool/targets.js';
// Code mode (HostOptions.codeMode), and its parts for hosts of your own.
export {
  CodeMode,
  RUN_CODE,
  SEARCH_API,
  type CodeModeOptions,
  type CodeRunContext,
  type CodeRunOutcome,
  type CodeToolDefinition,
  type SearchAnswer,
} from '../codemode/code-mode.js';
export { CodeApi, type ApiFunction, type ApiTool, type CodeApiOptions } from '../codemode/api.js';
export type { Ranker } from '../codemode/rank.js';
export {
  DEFAULT_LIMITS as SANDBOX_DEFAULT_LIMITS,
  runProgram,
  SandboxCallError,
  type ProgramError,
  type ProgramErrorKind,
  type ProgramResult,
  type RunProgramOptions,
  type SandboxCall,
  type SandboxLimits,
} from '../codemode/sandbox.js';
export { SandboxUnavailableError } from '../codemode/limits.js';
export { schemaToType } from '../codemode/schema-ts.js';
export { SkillCatalog, type HostSkill, type HostSkillFile, type SkillCatalogEvent, type SkillCatalogOptions } from '../host/skills.js';
export { diagnose } from '../host/doctor/diagnose.js';
export type { Diagnosis, DiagnoseOptions, DoctorCode, DoctorEvent, DoctorFailure, DoctorStep, DoctorTarget } from '../host/doctor/types.js';
