// The skills of every connected server, as one catalog a host shows its model: each skill tagged
// with the server it came from, names that never let one server's skill stand in for another's,
// files read only through the origin server's verifying reader, and `allowed-tools` left out.
import type { McpClient } from '../client/client.js';
import type { Subscription } from '../client/listen.js';
import {
  getSkill,
  listSkills,
  readSkillFile,
  SKILLS_EXTENSION_ID,
  SkillVerificationError,
  type ReadSkillFileOptions,
  type SkillFileContent,
  type SkillInfo,
} from '../client/skills.js';
import { LocalError } from '../jsonrpc/errors.js';
import type { ServerPool } from '../pool/pool.js';

/** Frontmatter a host takes from no MCP server: permissions are the user's to grant (SEP-2640). */
const IGNORED_FRONTMATTER = ['allowed-tools'] as const;

/** A skill as the host offers it. */
export interface HostSkill {
  /**
   * The name to show the model and to {@link SkillCatalog.resolve}: the skill's own name while no
   * other skill has it, its {@link qualifiedName} when another does (never one for both).
   */
  name: string;
  /** `<server>:<skill path>`: unique in the catalog and stable while both stay connected. */
  qualifiedName: string;
  /** The server it came from: every file of it is read from there, and only there. */
  server: string;
  /** Its SKILL.md URI on that server. */
  uri: string;
  /** The frontmatter `name`. */
  skillName: string;
  description: string | undefined;
  /** The entry's frontmatter without the fields the host ignores ({@link ignored}). */
  frontmatter: Record<string, unknown>;
  /** Frontmatter fields present but not taken (`allowed-tools`): shown to a person, never enforced nor trusted. */
  ignored: string[];
  /** Files unverifiable (`resources: "dynamic"`): refused by {@link SkillCatalog.read} unless allowed. */
  dynamic: boolean;
}

/** A verified file of a skill, tagged with where it came from. */
export interface HostSkillFile extends SkillFileContent {
  server: string;
  /** The skill's qualified name. */
  skill: string;
}

export type SkillCatalogEvent =
  /** The skills of `server` were listed anew (connected, `list_changed`, `refresh()`), or dropped when it went away. */
  | { type: 'changed'; server: string }
  /** Several skills share `name`: each is offered under its qualified name, and the bare name resolves to none. */
  | { type: 'clash'; name: string; skills: string[] }
  /** Listing a server's skills failed (its skills are left as they were). */
  | { type: 'error'; server: string; error: Error };

export interface SkillCatalogOptions {
  /** `on-clash` (default): bare names while unique; `always`: every skill under its qualified name. */
  qualify?: 'on-clash' | 'always';
  onEvent?: (event: SkillCatalogEvent) => void;
}

interface Source {
  names(): string[];
  client(server: string): McpClient | undefined;
  watch?(catalog: { connected(server: string): void; gone(server: string): void }): () => void;
  /** Servers that are down come back (a pool reconnects them): their skills stay listed meanwhile. */
  keepsWhileDown?: boolean;
}

interface Held {
  client: McpClient;
  entries: SkillInfo[];
  off: Array<() => void>;
  listen?: Subscription;
  /** Listings run one after another; the last one wins. */
  chain: Promise<void>;
}

/**
 * The skills of many servers (SEP-2640 host rules): listed from every server that declares the
 * skills extension, named without silent shadowing, read back verified from their own server.
 *
 *   const catalog = new SkillCatalog(pool);       // a ServerPool, or { name: client } of connected clients
 *   await catalog.refresh();
 *   const file = await catalog.read('refunds');   // SKILL.md, verified, tagged with its server
 */
export class SkillCatalog {
  private readonly source: Source;
  private readonly held = new Map<string, Held>();
  private list: HostSkill[] = [];
  private byName = new Map<string, HostSkill>();
  private byQualified = new Map<string, { skill: HostSkill; info: SkillInfo }>();
  private clashes = new Map<string, string>();
  private readonly listeners = new Set<(event: SkillCatalogEvent) => void>();
  private readonly unwatch: (() => void) | undefined;
  private closed = false;

  constructor(
    source: ServerPool | Readonly<Record<string, McpClient>>,
    private readonly options: SkillCatalogOptions = {},
  ) {
    this.source = isPool(source) ? poolSource(source) : clientsSource(source);
    this.unwatch = this.source.watch?.({ connected: (s) => void this.refresh(s), gone: (s) => this.drop(s) });
  }

  /** A catalog over `source` with every server's skills listed. */
  static async open(source: ServerPool | Readonly<Record<string, McpClient>>, options?: SkillCatalogOptions): Promise<SkillCatalog> {
    const catalog = new SkillCatalog(source, options);
    await catalog.refresh();
    return catalog;
  }

  /**
   * Lists the skills of `server`, or of every connected server, again. Failures are reported as
   * `error` events (the server's previous skills stay); never rejects.
   */
  async refresh(server?: string): Promise<void> {
    const names = server === undefined ? this.source.names() : [server];
    // A server no longer in the source (removed from the pool) takes its skills with it.
    if (server === undefined) for (const gone of [...this.held.keys()].filter((s) => !names.includes(s))) this.drop(gone);
    await Promise.all(names.map((s) => this.relist(s)));
  }

  /** Every skill, ordered by server then URI. */
  skills(): readonly HostSkill[] {
    return this.list;
  }

  /**
   * The skill a name designates: a qualified name always, a bare name only while exactly one
   * skill has it. Undefined otherwise (see {@link candidates} for an ambiguous one).
   */
  resolve(name: string): HostSkill | undefined {
    return this.byQualified.get(name)?.skill ?? this.byName.get(name);
  }

  /** Every skill whose own name is `name`, whatever it is offered as. */
  candidates(name: string): HostSkill[] {
    return this.list.filter((s) => s.skillName === name || s.qualifiedName === name);
  }

  /**
   * Reads a file of a skill (its SKILL.md by default; `file` is a URI of the skill or a path
   * relative to its directory) from the skill's own server, verified against the entry. A
   * mismatch makes the catalog ask the server for the current entry (`skills/get`) once: a file
   * changed since listing is read again under the new entry, anything else throws the
   * `SkillVerificationError`.
   */
  async read(name: string, file?: string, options: ReadSkillFileOptions = {}): Promise<HostSkillFile> {
    const found = this.find(name);
    const { skill } = found;
    // The origin server's current client, and no other: a skill never causes a read elsewhere.
    const client = this.source.client(skill.server);
    if (!client) throw new LocalError('closed', `Server "${skill.server}" of skill "${skill.qualifiedName}" is not connected`);
    const uri = fileUri(skill.uri, file);
    try {
      return this.tag(skill, await readSkillFile(client, found.info, uri, options));
    } catch (e) {
      if (!(e instanceof SkillVerificationError) || e.reason === 'dynamic' || e.reason === 'malformed') throw e;
      const fresh = await getSkill(client, skill.uri, options);
      if (JSON.stringify(fresh) === JSON.stringify(found.info)) throw e;
      this.replace(skill.server, fresh);
      return this.tag(this.byQualified.get(skill.qualifiedName)?.skill ?? skill, await readSkillFile(client, fresh, uri, options));
    }
  }

  /**
   * The catalog as a model reads it: one line a skill with its name, origin server and
   * description. Descriptions are the servers' words; the origin tells the model whose.
   */
  describe(): string {
    return this.list.map((s) => `- ${s.name} (from MCP server "${s.server}"): ${s.description ?? '(no description)'}`).join('\n');
  }

  on(listener: (event: SkillCatalogEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops following the servers (their clients stay open: they are not the catalog's). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatch?.();
    const subs = [...this.held.values()].map((h) => this.release(h));
    this.held.clear();
    this.listeners.clear();
    this.rename();
    await Promise.all(subs);
  }

  private find(name: string): { skill: HostSkill; info: SkillInfo } {
    const skill = this.resolve(name);
    if (skill) return this.byQualified.get(skill.qualifiedName)!;
    const all = this.candidates(name);
    if (all.length > 1)
      throw new LocalError(
        'protocol',
        `Skill name "${name}" is ambiguous (${all.length} skills have it): use one of ${all.map((s) => s.qualifiedName).join(', ')}`,
      );
    throw new LocalError('protocol', `No skill "${name}"`);
  }

  private tag(skill: HostSkill, content: SkillFileContent): HostSkillFile {
    return { ...content, server: skill.server, skill: skill.qualifiedName };
  }

  private relist(server: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const client = this.source.client(server);
    if (!client) {
      // Not connected now: a pool server being reconnected keeps its skills (see poolSource).
      if (!this.source.keepsWhileDown) this.drop(server);
      return Promise.resolve();
    }
    let held = this.held.get(server);
    // A new connection (the pool reconnected): the skills stay offered until it has listed them.
    const previous = held && held.client !== client ? held.entries : undefined;
    if (held && previous) {
      void this.release(held);
      held = undefined;
    }
    if (!held) {
      if (client.serverCapabilities?.extensions?.[SKILLS_EXTENSION_ID] === undefined) {
        this.drop(server);
        return Promise.resolve();
      }
      held = { client, entries: previous ?? [], off: [], chain: Promise.resolve() };
      this.held.set(server, held);
      this.follow(server, held);
    }
    const h = held;
    h.chain = h.chain.then(async () => {
      try {
        const entries = await listSkills(h.client);
        if (this.held.get(server) !== h) return;
        h.entries = entries;
        this.rename();
        this.emit({ type: 'changed', server });
      } catch (e) {
        if (this.held.get(server) === h) this.emit({ type: 'error', server, error: e instanceof Error ? e : new Error(String(e)) });
      }
    });
    return h.chain;
  }

  /**
   * The extension defines no list_changed of its own: a server whose skills change says so with
   * `notifications/resources/list_changed` (skill files are resources), which this follows.
   */
  private follow(server: string, held: Held): void {
    held.off.push(held.client.on('notifications/resources/list_changed', () => void this.relist(server)));
    if (held.client.era !== 'modern') return;
    try {
      held.listen = held.client.listen({ resourcesListChanged: true });
      held.listen.ended.catch(() => {});
      held.listen.acknowledged.catch(() => {});
    } catch (e) {
      this.emit({ type: 'error', server, error: e instanceof Error ? e : new Error(String(e)) });
    }
  }

  private async release(held: Held): Promise<void> {
    for (const off of held.off) off();
    await held.listen?.close().catch(() => {});
  }

  private drop(server: string): void {
    const held = this.held.get(server);
    if (!held) return;
    this.held.delete(server);
    void this.release(held);
    this.rename();
    this.emit({ type: 'changed', server });
  }

  private replace(server: string, fresh: SkillInfo): void {
    const held = this.held.get(server);
    if (!held) return;
    held.entries = held.entries.map((e) => (e.uri === fresh.uri ? fresh : e));
    this.rename();
  }

  private rename(): void {
    const all: Array<{ skill: HostSkill; info: SkillInfo }> = [];
    for (const server of [...this.held.keys()].sort()) {
      for (const info of [...this.held.get(server)!.entries].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)))
        all.push({ skill: toHostSkill(server, info), info });
    }
    const count = new Map<string, number>();
    for (const { skill } of all) count.set(skill.skillName, (count.get(skill.skillName) ?? 0) + 1);
    const always = this.options.qualify === 'always';
    for (const { skill } of all) if (!always && count.get(skill.skillName) === 1) skill.name = skill.skillName;
    this.list = all.map((e) => e.skill);
    this.byQualified = new Map(all.map((e) => [e.skill.qualifiedName, e]));
    this.byName = new Map(this.list.filter((s) => s.name === s.skillName).map((s) => [s.name, s]));
    // One warning per clash as it appears or changes, not one per listing.
    const clashes = new Map<string, string>();
    for (const [name, n] of count) {
      if (n < 2) continue;
      const skills = this.list.filter((s) => s.skillName === name).map((s) => s.qualifiedName);
      const key = skills.join('\n');
      clashes.set(name, key);
      if (this.clashes.get(name) !== key) this.emit({ type: 'clash', name, skills });
    }
    this.clashes = clashes;
  }

  private emit(event: SkillCatalogEvent): void {
    const call = (fn: (e: SkillCatalogEvent) => void) => {
      try {
        fn(event);
      } catch {
        // A listener's bug must not stop the catalog's bookkeeping.
      }
    };
    if (this.options.onEvent) call(this.options.onEvent);
    for (const l of this.listeners) call(l);
  }
}

function toHostSkill(server: string, info: SkillInfo): HostSkill {
  const path = skillPath(info.uri);
  const frontmatter: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [k, v] of Object.entries(info.frontmatter)) {
    if ((IGNORED_FRONTMATTER as readonly string[]).includes(k)) ignored.push(k);
    else frontmatter[k] = v;
  }
  const own = typeof info.frontmatter.name === 'string' && info.frontmatter.name !== '' ? info.frontmatter.name : path.split('/').pop() || path;
  const qualifiedName = `${server}:${path}`;
  return {
    name: qualifiedName,
    qualifiedName,
    server,
    uri: info.uri,
    skillName: own,
    description: typeof info.frontmatter.description === 'string' ? info.frontmatter.description : undefined,
    frontmatter,
    ignored,
    dynamic: info.resources === 'dynamic',
  };
}

/** `skill://acme/refunds/SKILL.md` is `acme/refunds`; a URI of another shape stands for itself. */
function skillPath(uri: string): string {
  const m = /^skill:\/\/(.+)\/SKILL\.md$/.exec(uri);
  return m ? m[1] : uri;
}

/** A file of the skill whose SKILL.md is `skillUri`: a URI as is, a relative path under its directory. */
function fileUri(skillUri: string, file: string | undefined): string {
  if (file === undefined || file === '' || file === 'SKILL.md') return skillUri;
  if (/^[a-z][a-z0-9+.-]*:/i.test(file)) return file;
  return `${skillUri.slice(0, skillUri.lastIndexOf('/') + 1)}${file.replace(/^\.?\//, '')}`;
}

function isPool(source: unknown): source is ServerPool {
  return typeof (source as ServerPool).servers === 'function' && typeof (source as ServerPool).on === 'function';
}

function poolSource(pool: ServerPool): Source {
  return {
    names: () => pool.servers().map((s) => s.name),
    client: (s) => pool.client(s),
    keepsWhileDown: true,
    watch(catalog) {
      // As the pool does with tools: a lost server's skills stay while it is reconnected (a
      // name keeps its meaning through a blip); one given up on takes them with it.
      const offs = [
        pool.on('connected', (e) => catalog.connected(e.server)),
        pool.on('closed', (e) =>
          queueMicrotask(() => {
            const s = pool.server(e.server);
            if (!s || (s.state !== 'connected' && s.state !== 'connecting' && s.retryInMs === undefined)) catalog.gone(e.server);
          }),
        ),
        pool.on('failed', (e) => {
          if (e.retryInMs === undefined) catalog.gone(e.server);
        }),
      ];
      return () => {
        for (const off of offs) off();
      };
    },
  };
}

function clientsSource(clients: Readonly<Record<string, McpClient>>): Source {
  return { names: () => Object.keys(clients), client: (s) => (clients[s]?.connected ? clients[s] : undefined) };
}
