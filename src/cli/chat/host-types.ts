// The host library's event shape as chat renders it (HOST-API.md), until src/host/host.ts lands.
import type { PoolEvent } from '../../host/pool-types.js';
import type { ModelResponse } from '../../host/model.js';
import type { CallToolResult, CreateMessageParams, ElicitParams } from '../../protocol/types.js';

export type HostEvent =
  | { type: 'server'; event: PoolEvent }
  | { type: 'model_start'; step: number }
  | { type: 'text'; delta: string }
  | { type: 'model_end'; step: number; response: ModelResponse }
  | { type: 'tool_call'; id: string; name: string; server: string; tool: string; arguments: unknown }
  | { type: 'approval'; id: string; name: string; approved: boolean; by: 'policy' | 'user' }
  | { type: 'tool_progress'; id: string; progress: number; total?: number; message?: string }
  | { type: 'tool_result'; id: string; name: string; server: string; result: CallToolResult; isError: boolean; truncated: boolean; durationMs: number }
  | { type: 'tool_error'; id: string; name: string; message: string }
  | { type: 'sampling'; server: string; params: CreateMessageParams }
  | { type: 'elicitation'; server: string; params: ElicitParams }
  | { type: 'answer'; text: string };
