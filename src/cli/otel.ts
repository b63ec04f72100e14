// OpenTelemetry for the long-running commands (serve, bridge, gateway, chat): when the standard
// OTEL_* variables ask for an OTLP export, or --otel does, start the OpenTelemetry Node SDK and
// trace with mcpkit/otel. Everything is loaded with import(): a command run without telemetry
// loads none of it, and mcpkit does not depend on the SDK (an optional install next to it).
import type { Server } from '../server/server.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { HostObserver } from '../host/loop/types.js';
import { CommandError } from './args.js';

type Env = Record<string, string | undefined>;

/** The packages `--otel` needs, as one install line. */
export const OTEL_PACKAGES = '@opentelemetry/api @opentelemetry/sdk-node';

/**
 * Whether telemetry is asked for: `--otel`, or an OTLP endpoint in the environment
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or its traces/metrics variants), unless `OTEL_SDK_DISABLED=true`.
 */
export function otelWanted(flagGiven: boolean, env: Env): boolean {
  return askedBy(flagGiven, env) !== undefined;
}

const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'];

/** What asked for telemetry, as a person would undo it: `--otel`, or the variable that is set. */
export function askedBy(flagGiven: boolean, env: Env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (flagGiven) return '--otel';
  return ENDPOINTS.find((name) => !!env[name]);
}

/** The trace and span of the code running now (for log lines), when telemetry is on. */
export type ActiveIds = () => { traceId: string; spanId: string } | undefined;

export interface Telemetry {
  /** Traces a server's requests (installs mcpkit/otel's extension unless the module did). */
  instrumentServer(server: Server): Promise<void>;
  /** Client-side spans for a connection the command makes (bridge, gateway backends, chat). */
  clientMiddleware(transport: 'http' | 'stdio', url?: string): Promise<MessageMiddleware>;
  /** Client spans for each connection of a pool (gateway backends): one middleware per client. */
  poolMiddleware(): Promise<(server: string) => MessageMiddleware[]>;
  /** Spans of a host's loop (chat), with client spans for its servers. */
  hostObserver(): Promise<HostObserver>;
  activeIds: ActiveIds;
  /** Exports what is buffered and stops the SDK (bounded by the SDK's own export timeout). */
  shutdown(): Promise<void>;
}

interface SdkModule {
  NodeSDK: new (config: { serviceName?: string; instrumentations?: unknown[] }) => { start(): void; shutdown(): Promise<void> };
}
interface ApiModule {
  trace: { getActiveSpan(): { spanContext(): { traceId: string; spanId: string } } | undefined };
}

/**
 * Starts the OpenTelemetry Node SDK, configured the standard way: it reads `OTEL_*` from the
 * process environment (endpoint, `OTEL_EXPORTER_OTLP_PROTOCOL` http/protobuf, http/json or
 * grpc, headers, `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`...). `serviceName` applies
 * when `OTEL_SERVICE_NAME` is not set.
 */
export async function startTelemetry(serviceName: string, env: Env, asked = '--otel'): Promise<Telemetry> {
  const [sdk, api] = await Promise.all([load<SdkModule>('@opentelemetry/sdk-node', asked), load<ApiModule>('@opentelemetry/api', asked)]);
  // The SDK reads process.env; the CLI's io.env is process.env except in tests, which run the
  // command as a real process for this.
  const node = new sdk.NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ? undefined : serviceName, instrumentations: [] });
  node.start();
  return {
    async instrumentServer(server) {
      if (server.hasExtension('mcpkit/otel')) return;
      const { otel } = await import('../extensions/otel/server.js');
      server.install(otel());
    },
    async clientMiddleware(transport, url) {
      const { otelClient } = await import('../extensions/otel/client.js');
      return otelClient(url === undefined ? { transport } : { transport, url });
    },
    async poolMiddleware() {
      const { otelClient } = await import('../extensions/otel/client.js');
      return () => [otelClient()];
    },
    async hostObserver() {
      const { otelHost } = await import('../extensions/otel/host.js');
      return otelHost();
    },
    activeIds() {
      const ctx = api.trace.getActiveSpan()?.spanContext();
      return ctx === undefined ? undefined : { traceId: ctx.traceId, spanId: ctx.spanId };
    },
    shutdown: () => node.shutdown(),
  };
}

/**
 * Imports one of the OpenTelemetry packages; missing, a CommandError with the install line and
 * the other way out: undoing what asked for telemetry (`asked`: `--otel` or the variable set).
 */
export async function load<T>(name: string, asked = '--otel'): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' || (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      const undo = asked.startsWith('--') ? `drop ${asked}` : `unset ${asked}`;
      const why = asked.startsWith('--') ? asked : `${asked} (set in the environment)`;
      throw new CommandError(
        `${why} asks for OpenTelemetry export, which needs the OpenTelemetry SDK, and it is not installed: npm install ${OTEL_PACKAGES} (next to mcpkit), or ${undo}`,
        { cause: err },
      );
    }
    throw err;
  }
}
