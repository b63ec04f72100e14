// --otel and --log-format for the long-running commands: one object that says how this run is
// observed, so serve, bridge, gateway and chat set it up the same way.
import type { MessageMiddleware } from '../engine/middleware.js';
import type { HostObserver } from '../host/loop/types.js';
import type { Server } from '../server/server.js';
import { flag, str, UsageError, type OptionSpecs } from './args.js';
import type { CliIo } from './io.js';
import { askedBy, startTelemetry, type Telemetry } from './otel.js';
import { jsonLog, requestLog } from './request-log.js';

export const OBSERVABILITY_OPTIONS: OptionSpecs = {
  otel: { type: 'boolean' },
  'log-format': { type: 'string' },
};

export const OBSERVABILITY_HELP = `  --otel                   export traces and metrics over OTLP (also on when
                           OTEL_EXPORTER_OTLP_ENDPOINT is set; configured by the OTEL_*
                           variables; needs @opentelemetry/api and @opentelemetry/sdk-node)
  --log-format text|json   json: one JSON line per request on stderr, with trace and span ids
`;

export interface Observability {
  /** --log-format json. */
  readonly json: boolean;
  /** A JSON log line on stderr (only with --log-format json). */
  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void;
  /** Traces the server's requests (with telemetry) and logs them (with JSON logs). */
  instrumentServer(server: Server): Promise<void>;
  /** Client-side spans for a connection the command makes; none without telemetry. */
  clientMiddleware(transport: 'http' | 'stdio', url?: string): Promise<MessageMiddleware[]>;
  /** Client spans for a pool's connections (PoolOptions.clientMiddleware); undefined without telemetry. */
  poolMiddleware(): Promise<((server: string) => MessageMiddleware[]) | undefined>;
  /** The Host's observer (HostOptions.observer): its loop's spans and its clients'; undefined without telemetry. */
  hostObserver(): Promise<HostObserver | undefined>;
  /**
   * With telemetry on, the `OTEL_*` variables for the servers the command starts, so that a
   * stdio server exports to the same place and the trace continues in it (the context itself
   * travels in `_meta`). Not `OTEL_SERVICE_NAME`: a server names itself. Empty without telemetry.
   */
  childEnv(): Record<string, string>;
  /** Flushes telemetry. */
  shutdown(): Promise<void>;
}

type Values = Parameters<typeof flag>[0];

export async function startObservability(values: Values, serviceName: string, io: CliIo): Promise<Observability> {
  const format = str(values, 'log-format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--log-format: "${format}" is not a format; use text or json`);
  const json = format === 'json';
  const asked = askedBy(flag(values, 'otel'), io.env);
  const telemetry: Telemetry | undefined = asked === undefined ? undefined : await startTelemetry(serviceName, io.env, asked);
  let stopped = false;
  return {
    json,
    log(level, msg, fields) {
      if (json) jsonLog(io.stderr, level, msg, fields);
    },
    async instrumentServer(server) {
      // Telemetry first: the request log's observer then runs inside the request's span.
      await telemetry?.instrumentServer(server);
      if (json) server.install(requestLog(io.stderr, telemetry?.activeIds));
    },
    async clientMiddleware(transport, url) {
      return telemetry ? [await telemetry.clientMiddleware(transport, url)] : [];
    },
    async poolMiddleware() {
      return telemetry?.poolMiddleware();
    },
    async hostObserver() {
      return telemetry?.hostObserver();
    },
    childEnv() {
      const env: Record<string, string> = {};
      if (telemetry === undefined) return env;
      for (const [k, v] of Object.entries(io.env)) if (k.startsWith('OTEL_') && k !== 'OTEL_SERVICE_NAME' && v !== undefined) env[k] = v;
      return env;
    },
    async shutdown() {
      if (stopped || telemetry === undefined) return;
      stopped = true;
      await telemetry.shutdown().catch((err: unknown) => {
        if (json) jsonLog(io.stderr, 'warn', 'telemetry export failed', { error: (err as Error).message });
        else io.stderr.write(`mcpkit: telemetry export failed: ${(err as Error).message}\n`);
      });
    },
  };
}
