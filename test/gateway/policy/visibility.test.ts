// Visibility rules: who sees which namespaced tools, prompts and resources. Deny wins over any
// allow, rules apply only to the callers their `when` names, and the default follows the rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Visibility } from '../../../src/gateway/policy/visibility.js';
import { compileGlob } from '../../../src/gateway/policy/match.js';
import { ANONYMOUS } from '../../../src/gateway/policy/identity.js';
import { caller, item, tool } from './helpers.js';

const NAMES = ['github_search', 'github_delete_repo', 'jira_create', 'jira_delete_issue', 'files_read'];
const seen = (v: Visibility, who: Parameters<Visibility['visible']>[0]) => NAMES.filter((n) => v.visible(who, tool(n)));

test('the brief example: dev sees github_*, admin scope sees everything, *_delete* nobody', () => {
  const v = new Visibility([{ when: { group: 'dev' }, allow: ['github_*'] }, { when: { scope: 'admin' }, allow: ['*'] }, { deny: ['*_delete*'] }]);
  assert.deepEqual(seen(v, caller('alice', ['dev'])), ['github_search']);
  assert.deepEqual(seen(v, caller('root', [], ['admin'])), ['github_search', 'jira_create', 'files_read']);
  // Neither: the rules allow things, so what they do not allow is hidden.
  assert.deepEqual(seen(v, caller('bob', ['sales'])), []);
  assert.deepEqual(seen(v, ANONYMOUS), []);
});

test('deny wins whatever the order, and only for the callers its when names', () => {
  const v = new Visibility([{ when: { id: 'bob' }, deny: ['jira_*'] }, { allow: ['*'] }]);
  assert.deepEqual(seen(v, caller('bob')), ['github_search', 'github_delete_repo', 'files_read']);
  assert.deepEqual(seen(v, caller('alice')), NAMES);
});

test('the default: allow when no rule allows anything, deny otherwise, or as configured', () => {
  const onlyDeny = new Visibility([{ deny: ['*_delete*'] }]);
  assert.deepEqual(seen(onlyDeny, caller('x')), ['github_search', 'jira_create', 'files_read']);
  const explicit = new Visibility({
    default: 'allow',
    rules: [
      { when: { group: 'dev' }, allow: ['github_*'] },
      { when: { group: 'ops' }, deny: ['github_*'] },
    ],
  });
  assert.deepEqual(seen(explicit, caller('ops', ['ops'])), ['jira_create', 'jira_delete_issue', 'files_read']);
  assert.deepEqual(seen(new Visibility({ default: 'deny', rules: [] }), caller('x')), []);
  assert.deepEqual(seen(new Visibility(undefined), caller('x')), NAMES);
});

test('when: every condition must hold; lists match any value; claims match values and list members', () => {
  const v = new Visibility([
    { when: { group: ['dev', 'ops'], claim: { tenant: 'acme' } }, allow: ['files_*'] },
    { when: { anonymous: true }, allow: ['github_search'] },
    { when: { claim: { level: 3 } }, allow: ['jira_create'] },
  ]);
  assert.deepEqual(seen(v, caller('a', ['ops'], [], { tenant: 'acme' })), ['files_read']);
  assert.deepEqual(seen(v, caller('b', ['ops'], [], { tenant: 'other' })), []);
  assert.deepEqual(seen(v, caller('c', [], [], { tenant: ['x', 'acme'] })), []);
  assert.deepEqual(seen(v, caller('d', ['dev'], [], { tenant: ['x', 'acme'] })), ['files_read']);
  assert.deepEqual(seen(v, caller('e', [], [], { level: 3 })), ['jira_create']);
  assert.deepEqual(seen(v, ANONYMOUS), ['github_search']);
  // A token's groups claim as one space-separated string counts as a list.
  assert.deepEqual(seen(v, { id: 'f', scopes: [], claims: { groups: 'qa ops', tenant: 'acme' }, auth: { principal: 'f' } }), ['files_read']);
});

test('kinds limit a rule to tools, prompts or resources; resource URIs are names like any other', () => {
  const v = new Visibility([
    { kinds: ['resource'], allow: ['docs+file:///*'] },
    { kinds: ['prompt'], allow: ['*'] },
  ]);
  const who = caller('x');
  assert.equal(v.visible(who, item('resource', 'docs+file:///readme.md')), true);
  assert.equal(v.visible(who, item('resource', 'wiki+file:///readme.md')), false);
  assert.equal(v.visible(who, item('prompt', 'docs_summarize')), true);
  assert.equal(v.visible(who, item('tool', 'docs_summarize')), false);
});

test('globs: * spans any characters, ? one, everything else is literal', () => {
  assert.ok(compileGlob('a*c').test('abbbc'));
  assert.ok(compileGlob('a*c').test('a/b:c'));
  assert.ok(compileGlob('a?c').test('abc'));
  assert.ok(!compileGlob('a?c').test('abbc'));
  assert.ok(!compileGlob('a.c').test('abc'));
  assert.ok(compileGlob('a.c').test('a.c'));
  assert.ok(compileGlob('(x)+[y]').test('(x)+[y]'));
  assert.ok(!compileGlob('github_*').test('xgithub_search'));
  assert.ok(compileGlob('*\n*').test('a\nb'));
});
