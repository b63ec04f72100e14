// mcpkit studio [TARGET...]: the web studio (src/studio) on loopback, its address (with the
// per-run access token) printed and opened in the browser.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ProviderConfig } from '../../host/providers/index.js';
import { readConfig, resolveTarget, targetFromEntry, type ConfigEntry } from '../../pool/targets.js';
import { settingsOf } from '../../pool/pool-config.js';
import type { ServerView } from '../../studio/api-types.js';
import { nameFor } from '../../studio/confirm.js';
import { fromDoctor } from '../../studio/diagnose.js';
import { diagnose } from '../../host/doctor/diagnose.js';
import type { StudioServer } from '../../studio/hub.js';
import { startStudio } from '../../studio/http.js';
import { isLoopbackAddress } from '../../studio/security.js';
import type { StudioOAuthOptions } from '../../studio/oauth.js';
import { envFrom, eraOf, flag, headersFrom, int, parse, str, strs, UsageError, version, type OptionSpecs } from '../args.js';
import type { CliIo } from '../io.js';
import { FileOAuthStore, openBrowser } from '../oauth.js';
import { StatusLine } from '../term.js';

const OPTIONS: OptionSpecs = {
  config: { type: 'string' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'no-open': { type: 'boolean' },
  'no-add': { type: 'boolean' },
  header: { type: 'string', multiple: true, short: 'H' },
  env: { type: 'string', multiple: true, short: 'e' },
  era: { type: 'string' },
  timeout: { type: 'string' },
  model: { type: 'string', short: 'm' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  'client-id': { type: 'string' },
  'client-metadata-url': { type: 'string' },
  scope: { type: 'string' },
  'no-oauth': { type: 'boolean' },
  'oauth-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const USAGE = `Usage: mcpkit studio [TARGET...] [options]

A web studio to connect to, debug and play with MCP servers: tools with forms from their
schemas, resources, prompts, elicitation and sampling (answered by hand, or drafted by the
model given with --model), and the protocol timeline. TARGET: a URL, a quoted command line, or a server name from a config (several at
once). With --config FILE and no TARGET, every server of FILE.

It listens on 127.0.0.1 and answers only the browser that opened the address it prints (that
address carries a random access token). Servers the page asks to add are started only after
you confirm them in the page.

Options:
  --config FILE          an mcpServers config (Claude, Cursor, VS Code, .mcp.json)
  -p, --port N           port (default 0: a free one)
  --host HOST            interface to bind (default 127.0.0.1; anything else is reachable
                         from other machines: the token is then all that protects it)
  --no-open              print the address, do not open a browser
  --no-add               the page cannot add servers (only the ones given here)
  -H, --header "K: V"    HTTP header for URL targets (repeatable)
  -e, --env KEY=VALUE    environment variable for command targets (repeatable)
  --era ERA              auto (default), modern or handshake, for every server
  --timeout SECONDS      request timeout (default 60)

Chat (the Chat panel: a model with the servers' tools):
  -m, --model NAME       the model, e.g. gpt-4.1-mini, claude-sonnet-4-5, llama3.2
  --base-url URL         an OpenAI-compatible endpoint (Ollama http://localhost:11434/v1,
                         vLLM...) or Anthropic's; default OpenAI's or Anthropic's
  --provider P           openai (Chat Completions) or anthropic (Messages); default anthropic
                         for claude-* models without --base-url, else openai
  --api-key-env VAR      the variable holding the key (default OPENAI_API_KEY or
                         ANTHROPIC_API_KEY; an endpoint on localhost needs none). The key
                         stays in the studio: the page never sees it.
                         A config file may say the same under "model": { "provider", "model",
                         "baseUrl", "apiKeyEnv" }.

OAuth (URL targets that answer 401 with resource metadata; the Sign-in panel shows each step):
  --client-id ID         a client registered with the authorization server, whose redirect
                         URIs include http://127.0.0.1/oauth/callback (any port, RFC 8252;
                         or fix the port with --port). Its secret, if any: MCPKIT_CLIENT_SECRET
  --client-metadata-url URL   an https client ID metadata document to use as the client id
  --scope "A B"          scopes to ask for (default: what the server's challenge names)
  --no-oauth             never sign in: a 401 is shown as it is
  --oauth-file FILE      keep client registrations, tokens and the DPoP key in FILE (mode
                         600) across runs, as the other commands do (their default file is
                         ~/.config/mcpkit/oauth.json): the next run signs in without you
  Default: dynamic registration, and tokens kept in memory for this run only.
`;

export async function studioCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('studio', argv, OPTIONS);
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const status = new StatusLine(io.stderr, io.env);
  const s = status.style;
  const config = str(values, 'config');
  const era = eraOf(values);
  const servers = studioServers(positionals, {
    config: config === undefined ? undefined : resolve(io.cwd, config),
    headers: headersFrom(strs(values, 'header')),
    env: envFrom(strs(values, 'env')),
    cwd: io.cwd,
    home: io.env.HOME || undefined,
  });
  for (const srv of servers) srv.settings = { ...srv.settings, era: srv.settings?.era ?? era };
  const host = str(values, 'host') ?? '127.0.0.1';
  const model = studioModel(values, config === undefined ? undefined : resolve(io.cwd, config), io.env);
  const studio = await startStudio({
    servers,
    version: version(),
    cwd: io.cwd,
    home: io.env.HOME || undefined,
    config: config === undefined ? undefined : resolve(io.cwd, config),
    env: io.env,
    host,
    port: int(values, 'port', 0, 0, 65535),
    canAdd: !flag(values, 'no-add'),
    // A failed connection is walked step by step by the connection doctor, which names the step and the fix.
    diagnose: fromDoctor(diagnose, { cwd: io.cwd, baseEnv: io.env }),
    requestTimeoutMs: int(values, 'timeout', 60, 0, 86_400) * 1000,
    ...(model ? { model } : {}),
    oauth: {
      ...(await oauthFile(values, io)),
      disabled: flag(values, 'no-oauth'),
      clientId: str(values, 'client-id'),
      clientSecret: io.env.MCPKIT_CLIENT_SECRET || undefined,
      clientMetadataUrl: str(values, 'client-metadata-url'),
      scope: str(values, 'scope'),
    },
    // For work on the page itself: serve a build of it from elsewhere (scripts/studio-ui.mjs).
    assetsDir: io.env.MCPKIT_STUDIO_ASSETS || undefined,
    onTargetRequest: (p) =>
      status.print(
        s.yellow(`! The page asks to ${p.target.kind === 'stdio' ? 'run' : 'connect to'}: ${p.target.text}`) +
          s.dim(`  (as server "${p.name}"; nothing happens unless you confirm it in the page)`),
      ),
  });
  if (!isLoopbackAddress(host)) {
    status.print(
      s.yellow(`! Listening on ${host}: other machines can reach the studio. Only the access token in its address protects it; do not share that address.`),
    );
  }
  const chat = studio.hub.chat.info();
  if (model && !chat.configured) status.print(s.yellow(`! Chat: ${chat.why}`));
  io.stdout.write(`mcpkit studio: ${studio.url}\n`);
  const states = new Map<string, string>();
  const off = studio.hub.on((event, data) => {
    if (event !== 'server') return;
    const v = data as ServerView;
    if (states.get(v.name) === v.state) return;
    states.set(v.name, v.state);
    if (v.state === 'connected')
      status.print(`${s.green('✓')} ${v.name}: connected (${v.era === 'modern' ? '2026-07-28' : (v.protocolVersion ?? 'handshake')})`);
    else if (v.state === 'failed') status.print(`${s.red('✖')} ${v.name}: ${v.error ?? 'failed'}`);
  });
  if (!flag(values, 'no-open')) openBrowser(studio.url);
  return new Promise<number>((done) => {
    let stopping = false;
    const unsubscribe = io.onSignal(() => {
      if (stopping) return done(130);
      stopping = true;
      off();
      void studio.close().finally(() => {
        unsubscribe();
        done(0);
      });
    });
  });
}

/**
 * The chat panel's model: --model (with --provider, --base-url, --api-key-env), else the config
 * file's "model" entry. The key is read here from the environment (never from the command line,
 * where other users of the machine could read it) and handed to the provider only.
 */
export function studioModel(
  values: Parameters<typeof str>[0],
  configFile: string | undefined,
  env: Record<string, string | undefined>,
): ProviderConfig | undefined {
  let entry: Record<string, unknown> = {};
  if (configFile !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(configFile, 'utf8'));
    } catch {
      raw = undefined;
    }
    const m = (raw as { model?: unknown } | undefined)?.model;
    if (m !== undefined) {
      if (!m || typeof m !== 'object' || Array.isArray(m))
        throw new UsageError(`studio: "model" in ${configFile} must be an object ({ "provider", "model", "baseUrl", "apiKeyEnv" })`);
      entry = m as Record<string, unknown>;
    }
  }
  const pick = (flagName: string, key: string): string | undefined => {
    const v = str(values, flagName) ?? entry[key];
    if (v !== undefined && typeof v !== 'string') throw new UsageError(`studio: "model.${key}" must be a string`);
    return v;
  };
  const name = pick('model', 'model');
  const baseUrl = pick('base-url', 'baseUrl');
  const named = pick('provider', 'provider');
  const keyEnv = pick('api-key-env', 'apiKeyEnv');
  if (name === undefined) {
    if (baseUrl !== undefined || named !== undefined || keyEnv !== undefined)
      throw new UsageError('studio: --base-url, --provider and --api-key-env need --model NAME');
    return undefined;
  }
  if (named !== undefined && named !== 'openai' && named !== 'anthropic') throw new UsageError(`studio: --provider: openai or anthropic, got "${named}"`);
  if (keyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) throw new UsageError(`studio: --api-key-env takes a variable name, got "${keyEnv}"`);
  const provider = named ?? (baseUrl === undefined && /^claude-/.test(name) ? 'anthropic' : 'openai');
  const apiKey = keyEnv !== undefined ? env[keyEnv] : undefined;
  if (keyEnv !== undefined && !apiKey) throw new UsageError(`studio: the variable ${keyEnv} (--api-key-env) is not set`);
  return { provider, model: name, ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}), env };
}

/** The servers named on the command line (resolved against --config), or every server of --config. */
export function studioServers(
  positionals: string[],
  o: { config?: string; headers: Record<string, string>; env: Record<string, string>; cwd: string; home?: string },
): StudioServer[] {
  const out: StudioServer[] = [];
  const taken = (n: string) => out.some((x) => x.name === n);
  if (positionals.length === 0) {
    if (o.config === undefined) return out;
    const entries = readConfig(o.config);
    for (const [name, entry] of Object.entries(entries)) {
      const target = targetFromEntry(name, entry, { ...o, file: o.config });
      if (target.kind === 'stdio' && target.cwd !== undefined) target.cwd = resolve(o.cwd, target.cwd);
      const settings = settingsOf(entry as Record<string, unknown>, `server "${name}" in ${o.config}`);
      out.push({ name, target, origin: 'config', settings });
    }
    return out;
  }
  for (const spec of positionals) {
    const target = resolveTarget(spec, o);
    let entry: ConfigEntry | undefined;
    if (o.config !== undefined) {
      const all = readConfig(o.config);
      if (Object.hasOwn(all, spec)) entry = all[spec];
    }
    const fromConfig = entry !== undefined;
    const name = fromConfig ? spec : nameFor(target, taken);
    if (taken(name)) throw new UsageError(`studio: two servers are named "${name}"`);
    out.push({
      name,
      target,
      origin: fromConfig ? 'config' : 'command-line',
      ...(fromConfig ? { settings: settingsOf(entry as Record<string, unknown>, `server "${name}"`) } : {}),
    });
  }
  return out;
}

/** --oauth-file: the CLI's token file (FileOAuthStore) and its DPoP key, for the studio's sign-ins. */
async function oauthFile(values: Parameters<typeof str>[0], io: CliIo): Promise<Pick<StudioOAuthOptions, 'store' | 'storeName' | 'dpop'>> {
  const given = str(values, 'oauth-file');
  if (given === undefined) return {};
  if (flag(values, 'no-oauth')) throw new UsageError('--oauth-file and --no-oauth contradict each other');
  const file = resolve(io.cwd, given);
  const store = new FileOAuthStore(file);
  return { store, storeName: file, dpop: { keyPair: await store.dpopKeyPair() } };
}
