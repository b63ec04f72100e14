import { LocalError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { Peer } from '../engine/peer.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types.js';
import type { InitializeResult } from '../protocol/params.js';
import { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION } from '../protocol/versions.js';
import type { ModernVerdict, Verdict } from './era.js';

/** What the handshake settled for a client connection. */
export interface HandshakeOutcome {
  protocolVersion: string;
  serverInfo: Implementation;
  serverCapabilities: ServerCapabilities;
  instructions: string | undefined;
}

/**
 * The handshake era's codec, client side: initialize, check the answer, send initialized.
 * A server answering with a revision we do not speak is a hard, explained failure.
 */
export async function performHandshake(
  peer: Peer,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
  options: { protocolVersion?: string; supported?: readonly string[]; timeoutMs?: number; signal?: AbortSignal },
): Promise<HandshakeOutcome> {
  const supported = options.supported ?? HANDSHAKE_VERSIONS;
  const requested = options.protocolVersion ?? LATEST_HANDSHAKE_VERSION;
  const raw = (await peer.request('initialize', { protocolVersion: requested, capabilities, clientInfo } as unknown as JsonObject, {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  })) as unknown as InitializeResult;
  // Given up meanwhile (the era probe's late answer won): the session is not started.
  if (options.signal?.aborted) throw options.signal.reason;
  const version = raw.protocolVersion;
  if (typeof version !== 'string' || !supported.includes(version)) {
    await peer.close().catch(() => {});
    throw new LocalError(
      'protocol',
      `Server answered initialize with protocol version ${JSON.stringify(version)}, which this client does not speak (it speaks ${supported.join(', ')})`,
    );
  }
  if (!raw.serverInfo || typeof raw.serverInfo !== 'object' || !raw.capabilities || typeof raw.capabilities !== 'object') {
    await peer.close().catch(() => {});
    throw new LocalError('protocol', 'Server answered initialize without "serverInfo" or "capabilities"');
  }
  await peer.notify('notifications/initialized');
  return {
    protocolVersion: version,
    serverInfo: raw.serverInfo,
    serverCapabilities: raw.capabilities,
    instructions: raw.instructions,
  };
}

/**
 * The handshake, unless `late` (the answer to an era probe that timed out) shows a 2026-07-28
 * server first: then the handshake is given up (no `notifications/initialized` follows) and the
 * modern verdict is returned instead.
 */
export async function handshakeUnlessLate(
  peer: Peer,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
  options: { protocolVersion?: string; timeoutMs?: number },
  late: Promise<Verdict | undefined> | undefined,
): Promise<{ o: HandshakeOutcome } | { v: ModernVerdict }> {
  const giveUp = new AbortController();
  const handshake = performHandshake(peer, clientInfo, capabilities, { ...options, signal: giveUp.signal });
  type First = { o: HandshakeOutcome } | { v: ModernVerdict };
  const settled = (): Promise<First> => handshake.then((o) => ({ o }));
  if (!late) return settled();
  const first = await Promise.race([settled(), late.then((v): First | Promise<First> => (v?.era === 'modern' ? { v } : settled()))]);
  if ('v' in first) {
    giveUp.abort(new LocalError('aborted', 'initialize was given up: the server answered server/discover first'));
    handshake.catch(() => {});
  }
  return first;
}
