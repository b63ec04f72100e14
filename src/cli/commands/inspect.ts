// mcpkit inspect TARGET: a connection summary, what the handshake settled and what is on offer.
import type { McpClient } from '../../client/client.js';
import type { ServerCapabilities } from '../../protocol/types.js';
import { features, isHandshakeVersion } from '../../protocol/versions.js';
import { flag, str } from '../args.js';
import { CLIENT_HELP, type Connection } from '../connection.js';
import { DOCTOR_HELP, DOCTOR_OPTIONS, failureText, runDoctor } from '../doctor.js';
import { showError, type ClientCommand } from '../run-client.js';
import { out as s } from '../term.js';

async function countOf(client: McpClient, caps: ServerCapabilities, kind: 'tools' | 'resources' | 'templates' | 'prompts'): Promise<number | null> {
  const cap = kind === 'templates' ? caps.resources : caps[kind];
  if (!cap) return null;
  switch (kind) {
    case 'tools':
      return (await client.listAllTools()).length;
    case 'resources':
      return (await client.listAllResources()).length;
    case 'templates':
      return (await client.listAllResourceTemplates()).length;
    case 'prompts':
      return (await client.listAllPrompts()).length;
  }
}

/** `tools (listChanged)`, `resources (subscribe, listChanged)`, `logging`... */
function capabilityList(caps: ServerCapabilities): string[] {
  return Object.entries(caps).map(([name, v]) => {
    const subs =
      v && typeof v === 'object'
        ? Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x === true || (x && typeof x === 'object'))
            .map(([k]) => k)
        : [];
    return subs.length ? `${name} (${subs.join(', ')})` : name;
  });
}

export const inspectCommand: ClientCommand = {
  name: 'inspect',
  minArgs: 1,
  maxArgs: 1,
  options: DOCTOR_OPTIONS,
  usage: `Usage: mcpkit inspect TARGET [options]

Connects and summarises: transport, negotiated protocol version and era, server info,
capabilities, instructions, how many tools/resources/templates/prompts, and round-trip time.
When it cannot connect, the connection doctor says which step fails and what to do (with
--json, as "diagnosis" next to "error"); mcpkit doctor TARGET shows every step.

${CLIENT_HELP}${DOCTOR_HELP}`,
  async connectFailed(target, err, values, status, io) {
    status.begin('doctor', 'diagnosing the connection…');
    const diagnosis = await runDoctor(target, values, io, false);
    status.end(diagnosis.ok);
    showError(err, status, flag(values, 'json'), io, 'Could not connect', { diagnosis });
    status.print(`${failureText(diagnosis, status.style)}\n${status.style.dim('(mcpkit doctor TARGET shows every step)')}`);
    return 1;
  },
  async run(conn, _args, values) {
    const c = conn.client;
    const caps = c.serverCapabilities ?? {};
    const version = c.protocolVersion ?? 'unknown';
    // What the client settled on; the version is a fallback for a client that does not say.
    const era = c.era ?? (features.modern(version) ? 'modern' : 'handshake');
    // Round trip: ping, or a tools/list when the server does not answer ping.
    let rtt: { method: string; ms: number } | { method: string; error: string };
    const t0 = performance.now();
    try {
      await c.ping();
      rtt = { method: 'ping', ms: performance.now() - t0 };
    } catch (err) {
      if (caps.tools) {
        const t1 = performance.now();
        await c.listTools();
        rtt = { method: 'tools/list', ms: performance.now() - t1 };
      } else rtt = { method: 'ping', error: (err as Error).message };
    }
    const counts = {
      tools: await countOf(c, caps, 'tools'),
      resources: await countOf(c, caps, 'resources'),
      resourceTemplates: await countOf(c, caps, 'templates'),
      prompts: await countOf(c, caps, 'prompts'),
    };
    const target = conn.target.kind === 'http' ? conn.target.url : [conn.target.command, ...conn.target.args].join(' ');
    if (flag(values, 'json')) {
      const summary = {
        target,
        transport: conn.transport,
        protocolVersion: version,
        era,
        eraRequested: conn.eraRequested,
        serverInfo: c.serverInfo,
        capabilities: caps,
        instructions: c.instructions ?? null,
        counts,
        connectMs: round(conn.connectMs),
        roundTrip: 'ms' in rtt ? { ...rtt, ms: round(rtt.ms) } : rtt,
      };
      conn.io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      return 0;
    }
    const info = c.serverInfo;
    const why = eraNote(era, conn, str(values, 'protocol-version'));
    const rows: Array<[string, string]> = [
      ['Server', `${s.bold(info?.name ?? '?')} ${info?.version ?? ''}${info?.title ? s.dim(`  "${info.title}"`) : ''}`],
      ['Target', target],
      ['Transport', conn.transport],
      ['Protocol', s.bold(version)],
      ['Era', `${s.bold(era)} ${s.dim(`(${why.what}; ${why.reason})`)}`],
      ['Capabilities', capabilityList(caps).join(', ') || s.dim('none')],
      [
        'Offers',
        (Object.entries(counts) as Array<[string, number | null]>)
          .map(([k, n]) => [k === 'resourceTemplates' ? 'templates' : k, n] as const)
          .map(([k, n]) => (n === null ? s.dim(`no ${k}`) : `${s.bold(String(n))} ${n === 1 ? k.slice(0, -1) : k}`))
          .join(', '),
      ],
      ['Connect', `${round(conn.connectMs)} ms ${s.dim(`(connect + ${why.steps})`)}`],
      ['Round trip', 'ms' in rtt ? `${round(rtt.ms)} ms ${s.dim(`(${rtt.method})`)}` : s.red(`${rtt.method} failed: ${rtt.error}`)],
    ];
    if (info?.websiteUrl) rows.splice(1, 0, ['Website', info.websiteUrl]);
    let text = rows.map(([k, v]) => `${s.dim(k.padEnd(13))}${v}`).join('\n');
    if (c.instructions) text += `\n${s.dim('Instructions')}\n${c.instructions.trim().replace(/^/gm, '  ')}`;
    conn.io.stdout.write(`${text}\n`);
    return 0;
  },
};

/** Why this era: what was asked, and what the server or the transport decided. */
function eraNote(era: 'modern' | 'handshake', conn: Connection, pinned: string | undefined): { what: string; reason: string; steps: string } {
  if (era === 'modern') {
    const reason = conn.eraRequested === 'auto' ? 'the server answered server/discover' : '--era modern';
    return { what: 'stateless requests, no session', reason, steps: 'server/discover' };
  }
  const what = 'initialize and a session';
  if (conn.eraRequested === 'handshake') return { what, reason: '--era handshake', steps: 'initialize' };
  if (conn.transport === 'sse') return { what, reason: 'HTTP+SSE speaks only this era', steps: 'initialize' };
  if (isHandshakeVersion(pinned)) return { what, reason: `--protocol-version ${pinned}`, steps: 'initialize' };
  return { what, reason: 'the server does not speak 2026-07-28', steps: 'server/discover probe + initialize' };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
