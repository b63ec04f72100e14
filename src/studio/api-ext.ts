// The API of the extension panels: MCP Apps (a view read, checked and kept for its sandboxed
// iframe), Tasks (follow, poll, cancel, list, dismiss) and Skills (list, then read and verify each
// file against the skill's entry: listed, size, sha256 digest, SKILL.md frontmatter).
import { readAppResource } from '../client/apps.js';
import { getSkill, listSkills, readSkillFile, SkillVerificationError, SKILLS_EXTENSION_ID, type SkillInfo } from '../client/skills.js';
import type { AppViewInfo, SkillFileCheck, TaskView } from './api-types.js';
import { badRequest, object, route, S, text, type ApiHelpers, type Route, type RouteContext } from './api-route.js';
import { StudioRequestError } from './confirm.js';
import { errorOf } from './errors.js';
import type { StudioHub } from './hub.js';

/** The largest skill file whose text the page is sent (it is verified whatever its size). */
const MAX_TEXT = 256 * 1024;

export function extensionRoutes(hub: StudioHub, api: ApiHelpers): Route[] {
  const taskId = (c: RouteContext) => text(c.body.taskId, 'taskId');
  /** A tracker call on a task it follows: 404 when it does not. */
  const onTask = async (c: RouteContext, run: (server: string, id: string) => Promise<TaskView>) => {
    api.connected(c);
    const id = taskId(c);
    if (!hub.tasks.get(c.params[0], id)) throw new StudioRequestError(404, `The studio does not follow task ${id} of "${c.params[0]}"`);
    return api.answer(() => run(c.params[0], id));
  };
  return [
    route('POST', `${S}/apps/open`, async (c) => {
      const client = api.connected(c);
      const uri = text(c.body.uri, 'uri');
      if (!c.origin) throw new StudioRequestError(500, 'The studio does not know its own origin');
      const origin = c.origin;
      // A resource no host may render (AppResourceError) is the server's answer, shown as such.
      return api.answer(async (): Promise<AppViewInfo> => hub.appViews.add(c.params[0], await readAppResource(client, uri, { signal: c.signal }), origin));
    }),
    // A view's sampling/createMessage: put to you as the server's are (by hand, or drafted by the
    // model); this request waits for your answer, and a refusal is the view's error.
    route('POST', `${S}/apps/sample`, async (c) => {
      api.connected(c);
      const params = object(c.body.params, 'params');
      if (!Array.isArray(params.messages) || params.messages.length === 0) throw badRequest('params.messages must be a non-empty list');
      if (typeof params.maxTokens !== 'number' || !(params.maxTokens > 0)) throw badRequest('params.maxTokens must be a positive number');
      try {
        return { result: await hub.inputs.sample(c.params[0], params as never, c.signal, 'view') };
      } catch (err) {
        return { error: errorOf(err) };
      }
    }),
    route('POST', `${S}/tasks/poll`, (c) => onTask(c, (s, id) => hub.tasks.poll(s, id))),
    route('POST', `${S}/tasks/cancel`, (c) => onTask(c, (s, id) => hub.tasks.cancel(s, id))),
    route('POST', `${S}/tasks/dismiss`, async (c) => ({ dismissed: hub.tasks.dismiss(c.params[0], taskId(c)) })),
    route('POST', `${S}/tasks/follow`, async (c) => {
      const client = api.connected(c);
      const id = taskId(c);
      return api.answer(() => hub.tasks.follow(c.params[0], client, id, client.era === 'modern' ? 'extension' : 'core'));
    }),
    route('POST', `${S}/tasks/list`, async (c) => {
      const client = api.connected(c);
      if (client.era === 'modern') throw badRequest('tasks/list does not exist in 2026-07-28 (the tasks extension lists nothing): follow a task by its id');
      return api.answer(() => hub.tasks.listOnServer(c.params[0], client));
    }),
    route('POST', `${S}/skills/list`, async (c) => {
      const client = api.connected(c);
      const declared = client.serverCapabilities?.extensions?.[SKILLS_EXTENSION_ID] !== undefined;
      return api.answer(async () => ({ declared, skills: await listSkills(client, { signal: c.signal }) }));
    }),
    route('POST', `${S}/skills/verify`, async (c) => {
      const client = api.connected(c);
      const uri = text(c.body.uri, 'uri');
      const given = c.body.skill === undefined ? undefined : (object(c.body.skill, 'skill') as unknown as SkillInfo);
      const only = c.body.file === undefined ? undefined : text(c.body.file, 'file');
      return api.answer(async () => {
        // The entry as the server says it now (a host verifies against the current entry).
        let skill: SkillInfo;
        try {
          skill = await getSkill(client, uri, { signal: c.signal });
        } catch (err) {
          if (!given || given.uri !== uri) throw err;
          skill = given;
        }
        const uris = only ? [only] : c.body.all === true && skill.resources !== 'dynamic' ? skill.resources.map((r) => r.uri) : [skill.uri];
        const files: SkillFileCheck[] = [];
        for (const file of uris.slice(0, 512)) files.push(await verifyFile(client, skill, file, c.signal));
        return { skill, files };
      });
    }),
  ];
}

/** One file read and checked as a host must before using it; a mismatch is reported, never thrown. */
async function verifyFile(client: Parameters<typeof readSkillFile>[0], skill: SkillInfo, uri: string, signal: AbortSignal): Promise<SkillFileCheck> {
  const dynamic = skill.resources === 'dynamic';
  const listed = dynamic ? undefined : (skill.resources as Exclude<SkillInfo['resources'], 'dynamic'>).find((r) => r.uri === uri);
  try {
    const f = await readSkillFile(client, skill, uri, { signal, allowDynamic: true });
    return {
      uri,
      status: dynamic ? 'unverifiable' : 'verified',
      size: f.bytes.length,
      ...(listed ? { digest: listed.digest } : {}),
      ...(f.mimeType ? { mimeType: f.mimeType } : {}),
      ...(f.text !== undefined && f.text.length <= MAX_TEXT ? { text: f.text } : {}),
      ...(dynamic ? { message: 'A dynamic skill: its files have no digests to check' } : {}),
    };
  } catch (err) {
    if (err instanceof SkillVerificationError)
      return { uri, status: 'mismatch', reason: err.reason, message: err.message, ...(listed ? { digest: listed.digest } : {}) };
    return { uri, status: 'unreadable', message: errorOf(err).message };
  }
}
