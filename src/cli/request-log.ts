// `--log-format json`: one JSON line per request served (and per event of the command), with the
// trace and span ids, so a log pipeline can join the logs to the traces. Installed as an
// extension whose `observe` hook runs inside mcpkit/otel's (installed first): the span it sees
// active is the request's server span.
import type { JsonObject, JsonRpcRequest } from '../jsonrpc/messages.js';
import type { ServerExtension } from '../server/extension.js';
import type { ActiveIds } from './otel.js';
import type { CliWritable } from './io.js';

export type LogFormat = 'text' | 'json';

/** Writes one JSON log line: `time`, `level`, `msg`, then the fields given. */
export function jsonLog(out: CliWritable, level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  out.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/;

/** The trace a request belongs to: its server span's when telemetry is on, else what its `_meta.traceparent` says. */
function traceFields(req: JsonRpcRequest, activeIds: ActiveIds | undefined): Record<string, string> {
  const ids = activeIds?.();
  if (ids !== undefined) return { trace_id: ids.traceId, span_id: ids.spanId };
  const meta = (req.params as JsonObject | undefined)?._meta;
  const tp = meta !== null && typeof meta === 'object' ? (meta as JsonObject).traceparent : undefined;
  const m = typeof tp === 'string' ? TRACEPARENT.exec(tp) : null;
  return m ? { trace_id: m[1], parent_span_id: m[2] } : {};
}

/** What a request was about, for the log line: the tool, prompt or resource it names. */
function target(req: JsonRpcRequest): Record<string, unknown> {
  const p = req.params as JsonObject | undefined;
  if (req.method === 'tools/call' || req.method === 'prompts/get') return typeof p?.name === 'string' ? { target: p.name } : {};
  if (req.method === 'resources/read' || req.method === 'resources/subscribe') return typeof p?.uri === 'string' ? { target: p.uri } : {};
  return {};
}

function outcome(method: string, result: JsonObject): Record<string, unknown> {
  return method === 'tools/call' && result.isError === true ? { outcome: 'tool_error' } : { outcome: 'ok' };
}

/** One `request` line per request, when it has been answered (or failed, or was cancelled). */
export function requestLog(out: CliWritable, activeIds: ActiveIds | undefined): ServerExtension {
  return {
    name: 'mcpkit/cli-log',
    setup() {
      return {
        observe(req, inbound, _conn, next) {
          const start = performance.now();
          const base = { method: req.method, id: req.id, ...target(req), ...traceFields(req, activeIds) };
          const done = (fields: Record<string, unknown>, level: 'info' | 'warn' = 'info') =>
            jsonLog(out, level, 'request', { ...base, duration_ms: Math.round((performance.now() - start) * 1000) / 1000, ...fields });
          const failed = (err: unknown) => {
            if (inbound.cancelled) done({ outcome: 'cancelled' });
            else done({ outcome: 'error', error: err instanceof Error ? err.message : String(err), ...codeOf(err) }, 'warn');
          };
          let result: Promise<JsonObject> | JsonObject;
          try {
            result = next();
          } catch (err) {
            failed(err);
            throw err;
          }
          if (result !== null && typeof (result as Promise<JsonObject>).then === 'function') {
            return (result as Promise<JsonObject>).then(
              (r) => {
                done(outcome(req.method, r));
                return r;
              },
              (err: unknown) => {
                failed(err);
                throw err;
              },
            );
          }
          done(outcome(req.method, result as JsonObject));
          return result;
        },
      };
    },
  };
}

function codeOf(err: unknown): Record<string, unknown> {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? { code } : {};
}
