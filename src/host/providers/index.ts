// Model providers: one factory that picks a provider from a config (what `mcpkit chat` and host
// configs name), and the providers and schema functions themselves.
import type { ModelProvider } from '../model.js';
import { ANTHROPIC_TOOL_NAME, AnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
import type { ProviderHttpOptions } from './http.js';
import { OPENAI_TOOL_NAME, OpenAIProvider, type OpenAIProviderOptions } from './openai.js';

export interface ProviderConfig extends ProviderHttpOptions {
  provider: 'openai' | 'anthropic';
  model: string;
  baseUrl?: string;
  /** Overrides the key read from `env`. */
  apiKey?: string;
  /** OpenAI only: strict tool schemas. */
  strict?: boolean;
  /** OpenAI only: `gemini` for Gemini's OpenAI-compatible endpoint. */
  dialect?: 'openai' | 'gemini';
  /** Anthropic only: default `max_tokens`. */
  maxTokens?: number;
  /** Anthropic only: its tool search tool for deferred definitions (AnthropicProviderOptions.toolSearch; default: on with the real API and a model that has it). */
  toolSearch?: boolean | 'bm25' | 'regex';
  /** Anthropic only: `anthropic-beta` flags. */
  betas?: readonly string[];
  stream?: boolean;
  /**
   * Where API keys are read (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`; `GEMINI_API_KEY` for the
   * gemini dialect, then OPENAI_API_KEY). Passed in, never read from process.env here, so a
   * caller decides what the host may see.
   */
  env?: Record<string, string | undefined>;
}

/** The configuration was unusable (unknown provider, no key for a remote endpoint). */
export class ProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderConfigError';
  }
}

const DEFAULT_BASE: Record<ProviderConfig['provider'], string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** Whether `url` points at this machine (a local model server needs no key). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The provider a config names. Throws ProviderConfigError for an unknown provider or a missing key. */
export function createProvider(config: ProviderConfig): ModelProvider {
  const { provider, env = {}, ...rest } = config;
  if (provider !== 'openai' && provider !== 'anthropic') {
    throw new ProviderConfigError(`unknown model provider ${JSON.stringify(provider)}: use "openai" (and OpenAI-compatible servers) or "anthropic"`);
  }
  if (!config.model) throw new ProviderConfigError(`no model given for the ${provider} provider`);
  const baseUrl = config.baseUrl ?? DEFAULT_BASE[provider];
  try {
    new URL(baseUrl);
  } catch {
    throw new ProviderConfigError(`the base URL ${JSON.stringify(baseUrl)} is not a URL`);
  }
  const keyNames = provider === 'anthropic' ? ['ANTHROPIC_API_KEY'] : config.dialect === 'gemini' ? ['GEMINI_API_KEY', 'OPENAI_API_KEY'] : ['OPENAI_API_KEY'];
  const apiKey = config.apiKey ?? keyNames.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  if (apiKey === undefined && !isLoopbackUrl(baseUrl)) {
    throw new ProviderConfigError(`no API key for ${baseUrl}: set ${keyNames.join(' or ')} (a local server on localhost/127.0.0.1 needs none)`);
  }
  if (provider === 'anthropic') {
    const { strict: _s, dialect: _d, ...options } = rest;
    return new AnthropicProvider({ ...(options as AnthropicProviderOptions), baseUrl, apiKey });
  }
  const { maxTokens: _m, toolSearch: _t, betas: _b, ...options } = rest;
  return new OpenAIProvider({ ...(options as OpenAIProviderOptions), baseUrl, apiKey });
}

/** Tool names a provider kind accepts (before a provider exists: the registry sizes names with it). */
export function toolNamePattern(provider: ProviderConfig['provider']): RegExp {
  return provider === 'anthropic' ? ANTHROPIC_TOOL_NAME : OPENAI_TOOL_NAME;
}

export { ANTHROPIC_TOOL_NAME, AnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
export { OPENAI_TOOL_NAME, OpenAIProvider, type OpenAIProviderOptions } from './openai.js';
export type { ProviderHttpOptions } from './http.js';
export {
  dropNullOptionals,
  isStrictCompatible,
  restoreStrictArguments,
  sanitizeForAnthropic,
  sanitizeForGemini,
  sanitizeForOpenAI,
  sanitizeForOpenAIStrict,
} from './schema.js';
export type { JsonSchema } from './schema-common.js';
