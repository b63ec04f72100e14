import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from './types.js';
import type { InitializeResult } from './params.js';
import { negotiateVersion } from './versions.js';

/** What a request is served under: which revision, and what the client said it can do. */
export interface RequestEnvelope {
  era: 'handshake' | 'modern';
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
}

export interface ServerIdentity {
  info: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  versions: readonly string[];
}

/**
 * The handshake era's codec, server side: one per connection (stdio process, HTTP session).
 * It owns `initialize`, remembers what was negotiated and turns away requests that come too
 * early. The engine and the dispatcher never look inside it.
 */
export class HandshakeServerEra {
  state: 'new' | 'initialized' | 'ready' = 'new';
  envelope: RequestEnvelope | undefined;

  constructor(private readonly identity: () => ServerIdentity) {}

  initialize(params: JsonObject | undefined): InitializeResult {
    if (this.state !== 'new') {
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid request: this connection is already initialized');
    }
    const requested = params?.protocolVersion;
    if (typeof requested !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: initialize needs "protocolVersion" (a string)');
    }
    const caps = params?.capabilities;
    if (caps !== undefined && (caps === null || typeof caps !== 'object' || Array.isArray(caps))) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "capabilities" must be an object');
    }
    const id = this.identity();
    const protocolVersion = negotiateVersion(requested, id.versions);
    this.envelope = {
      era: 'handshake',
      protocolVersion,
      clientCapabilities: (caps as ClientCapabilities | undefined) ?? {},
      clientInfo: params?.clientInfo as Implementation | undefined,
    };
    this.state = 'initialized';
    const result: InitializeResult = { protocolVersion, capabilities: id.capabilities, serverInfo: id.info };
    if (id.instructions !== undefined) result.instructions = id.instructions;
    return result;
  }

  /**
   * Takes the handshake as already done (stateless HTTP, or a session restored from a store):
   * requests are served under `envelope` without an initialize on this connection.
   */
  assume(envelope: RequestEnvelope): void {
    this.envelope = envelope;
    this.state = 'ready';
  }

  /** `notifications/initialized`; a repeat is harmless. */
  markReady(): void {
    if (this.state === 'initialized') this.state = 'ready';
  }

  /** The envelope for an ordinary request, or the spec's error when the handshake is not done. */
  admit(method: string): RequestEnvelope {
    const env = this.envelope;
    if (!env) {
      throw new McpError(ErrorCode.InvalidRequest, `Invalid request: "${method}" arrived before "initialize"; the client must initialize the connection first`);
    }
    return env;
  }
}
