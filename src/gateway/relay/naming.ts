// How a relay shows its backends' items to its clients, and reads back what they send. The
// gateway and mount() namespace everything (`<server>_<name>`, `mcpgw://<server>/<uri>` in the one
// canonical form of canonical.ts, which routing and every access decision read); a bridge, with
// one backend, passes names and URIs on as the backend wrote them.
import { assignNames, entryKey, VERBATIM_NAME_PATTERN, type NameEntry } from '../../pool/names.js';
import type { PoolOptions } from '../../pool/pool-types.js';
import { canonicalName, gatewayResource, parseGatewayUri } from '../canonical.js';
import { toGatewayUri } from '../uris.js';

/** A resource URI a client sent, read back: the backend, the URI it is sent, the name rules judge. */
export interface RelayedUri {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
}

export interface RelayNaming {
  /** How the lanes' pools name tools. */
  readonly tools: Pick<PoolOptions, 'prefix' | 'separator' | 'namePattern'>;
  /** The names of a lane's prompts, by {@link entryKey}. */
  prompts(entries: readonly NameEntry[]): Map<string, string>;
  /** A tool or prompt name as sent, in the one form names are compared in; undefined names nothing. */
  name(sent: string): string | undefined;
  /** A backend's resource URI as clients see it, or undefined to leave the resource out. */
  resource(server: string, uri: string): RelayedUri | undefined;
  /** A backend's URI template as clients see it. */
  template(server: string, uriTemplate: string): string;
  /** A URI a client sent, or undefined when it names no backend's resource. */
  parse(uri: string): RelayedUri | undefined;
  /** A URI a backend answered with (a read's contents), as clients know it. */
  back(server: string, uri: string): string;
}

/** The gateway's names: every item carries its server's name; URIs are canonical. */
export function namespaced(separator: string | undefined): RelayNaming {
  return {
    tools: { prefix: 'always', separator },
    prompts: (entries) => assignNames(entries, { prefix: 'always', separator }),
    name: canonicalName,
    resource: gatewayResource,
    // A template is no URI; what a client expands from it is read (and judged) canonically.
    template: toGatewayUri,
    parse: parseGatewayUri,
    back: (server, uri) => gatewayResource(server, uri)?.name ?? toGatewayUri(server, uri),
  };
}

/** One backend's own names and URIs, passed on unchanged (a bridge). */
export function verbatim(server: string): RelayNaming {
  const same = (_server: string, uri: string): RelayedUri => ({ server, uri, name: uri });
  return {
    tools: { prefix: 'never', namePattern: VERBATIM_NAME_PATTERN },
    prompts: (entries) => new Map(entries.map((e) => [entryKey(e), e.name])),
    name: (sent) => sent,
    resource: same,
    template: (_server, uriTemplate) => uriTemplate,
    parse: (uri) => same(server, uri),
    back: (_server, uri) => uri,
  };
}
