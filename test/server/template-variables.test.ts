// The variables of a resource template are typed from its string literal (TemplateVariables).
// Each expected value below is annotated with that type and compared with what the matcher
// really returns, so a type claiming more or less than the runtime gives fails one way or the
// other: `npm run typecheck` (a required key missing, a string where a list is) or the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import type { TemplateVariables } from '../../src/server/template-variables.js';
import { UriTemplate, type UriVariables } from '../../src/server/uri-template.js';
import { createTestPair } from '../../src/testing/index.js';
import type { Equal, Expect } from '../support/index.js';

function matches<T extends string>(template: T, uri: string, want: TemplateVariables<T>): void {
  assert.deepEqual(new UriTemplate(template).match(uri), want, `${template} against ${uri}`);
}

type _Types = [
  Expect<Equal<TemplateVariables<'users://{id}/posts{?page,tags*}'>, { id: string; page?: string; tags?: string[] }>>,
  Expect<Equal<TemplateVariables<'file:///{+path}'>, { path: string }>>,
  Expect<Equal<TemplateVariables<'x://{a,b}'>, { a: string; b?: string }>>,
  Expect<Equal<TemplateVariables<'x://h{/segments*}'>, { segments?: string[] }>>,
  Expect<Equal<TemplateVariables<'x://h/p{#frag}'>, { frag?: string }>>,
  Expect<Equal<TemplateVariables<'x://h/file{.ext}'>, { ext?: string }>>,
  Expect<Equal<TemplateVariables<'x://h/m{;p,q*}'>, { p?: string; q?: string[] }>>,
  Expect<Equal<TemplateVariables<'x://{name:3}/{list*}'>, { name: string; list: string[] }>>,
  Expect<Equal<TemplateVariables<'x://h{?a}{&b}'>, { a?: string; b?: string }>>,
  Expect<Equal<keyof TemplateVariables<'static://x'>, never>>,
  Expect<Equal<TemplateVariables<'a://{x}' | 'b://{y*}'>, { x: string } | { y: string[] }>>,
  // A template only known as a string: anything the matcher can produce.
  Expect<Equal<TemplateVariables<string>, UriVariables>>,
];

test('template variables: each operator gives the type the matcher produces, present or absent', () => {
  matches('users://{id}/posts{?page,tags*}', 'users://7/posts?tags=a&page=2&tags=b', { id: '7', page: '2', tags: ['a', 'b'] });
  matches('users://{id}/posts{?page,tags*}', 'users://7/posts', { id: '7' });
  matches('file:///{+path}', 'file:///a/b%20c', { path: 'a/b c' });
  matches('x://{a,b}', 'x://1,2', { a: '1', b: '2' });
  matches('x://{a,b}', 'x://1', { a: '1' });
  matches('x://h{/segments*}', 'x://h/a/b', { segments: ['a', 'b'] });
  matches('x://h{/segments*}', 'x://h', {});
  matches('x://h/p{#frag}', 'x://h/p#top', { frag: 'top' });
  matches('x://h/p{#frag}', 'x://h/p', {});
  matches('x://h/file{.ext}', 'x://h/file.md', { ext: 'md' });
  matches('x://h/file{.ext}', 'x://h/file', {});
  matches('x://h/m{;p,q*}', 'x://h/m;q=1;p=x;q=2', { p: 'x', q: ['1', '2'] });
  matches('x://h/m{;p,q*}', 'x://h/m', {});
  matches('x://{name:3}/{list*}', 'x://abc/1,2', { name: 'abc', list: ['1', '2'] });
  matches('x://{name:3}/{list*}', 'x://abc/1', { name: 'abc', list: ['1'] });
  matches('x://h{?a}{&b}', 'x://h?a=1&b=2', { a: '1', b: '2' });
  matches('x://h{?a}{&b}', 'x://h', {});
});

test('template variables: resourceTemplate hands its handler the typed variables', async () => {
  const server = new McpServer({ name: 'vars', version: '1.0.0' });
  server.resourceTemplate('posts', 'users://{id}/posts{?page,tags*}', {}, (_uri, vars) => {
    const id: string = vars.id;
    // @ts-expect-error page is absent when the URI has no ?page=
    const page: string = vars.page;
    // @ts-expect-error tags is a list (exploded), never one string
    const tag: string | undefined = vars.tags;
    // @ts-expect-error the template has no such variable
    vars.user;
    return JSON.stringify({ id, page: page ?? null, tags: tag ?? null });
  });
  // The handle's update takes a handler typed the same way.
  const handle = server.resourceTemplate('user', 'users://{id}', {}, (_uri, { id }) => id);
  // @ts-expect-error users://{id} has no page
  handle.update({ handler: (_uri, { page }) => String(page) });
  handle.update({ handler: (_uri, { id }) => `user ${id}` });
  // A template held in a `string` gets the loose type.
  const dynamic: string = 'notes://{name}';
  server.resourceTemplate('notes', dynamic, {}, (_uri, vars) => {
    const name: string | string[] | undefined = vars.name;
    return String(name);
  });
  const { client, close } = await createTestPair(server);
  const read = async (uri: string) => (await client.readResource(uri)).contents[0] as { text: string };
  assert.deepEqual(JSON.parse((await read('users://7/posts?tags=a')).text), { id: '7', page: null, tags: ['a'] });
  assert.deepEqual(JSON.parse((await read('users://7/posts?page=3')).text), { id: '7', page: '3', tags: null });
  assert.equal((await read('notes://n1')).text, 'n1');
  assert.equal((await read('users://ann')).text, 'user ann');
  await close();
});
