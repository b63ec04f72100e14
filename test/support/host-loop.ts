// A host loop under test: one or more mcpkit servers over real HTTP, a scripted model endpoint
// (llm.ts) of either wire format, and a Host between them that records every HostEvent.
import { serve, type RunningServer } from '../../src/serving/node.js';
import { Host } from '../../src/host/host.js';
import type { HostEvent, HostOptions } from '../../src/host/loop/types.js';
import { McpServer, type McpServerOptions } from '../../src/server/mcp-server.js';
import { startScriptedAnthropic, startScriptedOpenAI, type ScriptedLlm, type Turn } from './llm.js';

export interface LoopRig {
  host: Host;
  llm: ScriptedLlm;
  /** Every event the Host reported, in order. */
  events: HostEvent[];
  servers: Record<string, RunningServer>;
  /** The events of one type. */
  of<T extends HostEvent['type']>(type: T): Array<Extract<HostEvent, { type: T }>>;
  close(): Promise<void>;
}

export interface LoopRigOptions {
  flavor?: 'openai' | 'anthropic';
  script: Turn[];
  /** Servers by name: each gets an McpServer to register tools on. Default one, `srv`. */
  servers?: Record<string, (mcp: McpServer) => void>;
  /** More of the model's provider config (`toolSearch`, `stream`...). */
  provider?: Record<string, unknown>;
  /** Extra Host options (the model and servers are the rig's). */
  host?: Omit<Partial<HostOptions>, 'model'>;
  /** Extensions of every server (`otel()`). */
  extensions?: McpServerOptions['extensions'];
  /** Per-server instructions (a server's own text, sent at the handshake). */
  instructions?: Record<string, string>;
  /** Per-server config keys (`era`, `allow`...). */
  serverConfig?: Record<string, Record<string, unknown>>;
}

/** A started Host over fresh servers and a scripted model; `close()` ends all of them. */
export async function startLoopRig(o: LoopRigOptions): Promise<LoopRig> {
  const llm = o.flavor === 'anthropic' ? await startScriptedAnthropic(o.script) : await startScriptedOpenAI(o.script);
  const servers: Record<string, RunningServer> = {};
  const config: Record<string, unknown> = {};
  for (const [name, setup] of Object.entries(o.servers ?? { srv: () => {} })) {
    const instructions = o.instructions?.[name];
    const mcp = new McpServer({ name, version: '1.0.0', ...(instructions ? { instructions } : {}), ...(o.extensions ? { extensions: o.extensions } : {}) });
    setup(mcp);
    servers[name] = await serve(mcp, { port: 0 });
    config[name] = { url: servers[name].url, ...o.serverConfig?.[name] };
  }
  const events: HostEvent[] = [];
  const host = new Host({
    servers: config,
    model: { provider: o.flavor ?? 'openai', model: 'scripted', baseUrl: llm.baseUrl, ...o.provider },
    ...o.host,
    onEvent: (e) => {
      events.push(e);
      o.host?.onEvent?.(e);
    },
  });
  await host.start();
  return {
    host,
    llm,
    events,
    servers,
    of: <T extends HostEvent['type']>(type: T) => events.filter((e): e is Extract<HostEvent, { type: T }> => e.type === type),
    async close() {
      await host.close();
      await Promise.all(Object.values(servers).map((s) => s.close()));
      await llm.close();
    },
  };
}
