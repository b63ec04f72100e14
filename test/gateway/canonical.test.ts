// The one spelling of gateway names and URIs (src/gateway/canonical.ts): RFC 3986 6.2.2
// normalisation of resource URIs, what has no single reading refused, names compared exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalGlob, canonicalName, canonicalUri, normalisePercent, parseGatewayUri } from '../../src/gateway/canonical.js';
import { fromGatewayUri } from '../../src/gateway/uris.js';
import { checkPolicyConfig, PolicyConfigError } from '../../src/gateway/policy/config.js';

test('canonicalUri: case, percent-encoding and dot segments in one form (RFC 3986 6.2.2)', () => {
  const same: Array<[string, string]> = [
    ['file:///secret.txt', 'file:///secret.txt'],
    ['FILE:///secret.txt', 'file:///secret.txt'],
    ['file:///%73ecret.txt', 'file:///secret.txt'],
    ['file:///%2e/secret.txt', 'file:///secret.txt'],
    ['file:///./secret.txt', 'file:///secret.txt'],
    ['file:///a/b/../../secret.txt', 'file:///secret.txt'],
    ['file:///../secret.txt', 'file:///secret.txt'],
    ['file:///dir/.', 'file:///dir/'],
    ['HTTPS://Example.COM:8443/A/%7euser?Q=%2f#F', 'https://example.com:8443/A/~user?Q=%2F#F'],
    ['http://User@Example.com/', 'http://User@example.com/'],
    ['http://[FE80::1]:80/x', 'http://[fe80::1]:80/x'],
    // Reserved characters keep their meaning: an encoded slash stays encoded (upper-case hex).
    ['file:///a%2fb', 'file:///a%2Fb'],
    // What a URI may not hold literally is encoded, as from an IRI (RFC 3987 3.1).
    ['file:///my notes.txt', 'file:///my%20notes.txt'],
    ['file:///caf\u00e9', 'file:///caf%C3%A9'],
    ['file:///caf%c3%a9', 'file:///caf%C3%A9'],
    ['file:///a\\b', 'file:///a%5Cb'],
    ['urn:isbn:0451450523', 'urn:isbn:0451450523'],
    ['notes:a/./b/../c', 'notes:a/c'],
  ];
  for (const [input, expected] of same) assert.equal(canonicalUri(input), expected, input);
});

test('canonicalUri: what has no single reading is refused', () => {
  for (const bad of [
    'file:////secret.txt', // an empty path segment: a file system reads /secret.txt, RFC 3986 another path
    'file:///a//secret.txt',
    'file:///a/..//secret.txt',
    'http://x.test/a//b',
    'file:///bad%zzescape',
    'file:///trailing%',
    'file:///%4',
    'secret.txt', // a relative reference names nothing on its own
    '/secret.txt',
    '//host/x',
    '1abc:x', // not a scheme
    'file:///lone\ud800surrogate',
  ]) {
    assert.equal(canonicalUri(bad), undefined, bad);
  }
});

test('canonicalUri is idempotent', () => {
  for (const u of ['FILE:///./%73ecret.txt', 'HTTPS://Example.COM/a/../b%7e?x=%2f', 'file:///caf\u00e9 x']) {
    const once = canonicalUri(u)!;
    assert.equal(canonicalUri(once), once, u);
  }
});

test('parseGatewayUri: the backend in any encoding, the URI canonical, the whole canonical', () => {
  for (const spelling of [
    'mcpgw://hr/file:///secret.txt',
    'mcpgw://h%72/file:///secret.txt',
    'mcpgw://%68%72/file:///./secret.txt',
    'MCPGW://hr/FILE:///%73ecret.txt',
  ]) {
    assert.deepEqual(parseGatewayUri(spelling), { server: 'hr', uri: 'file:///secret.txt', name: 'mcpgw://hr/file:///secret.txt' }, spelling);
  }
  // Backend names are case-sensitive, as the gateway looks them up.
  assert.equal(parseGatewayUri('mcpgw://HR/file:///x')?.server, 'HR');
  assert.deepEqual(parseGatewayUri('mcpgw://my%20crm/file:///x'), { server: 'my crm', uri: 'file:///x', name: 'mcpgw://my%20crm/file:///x' });
  for (const bad of ['mcpgw://hr/file:////secret.txt', 'mcpgw://hr/', 'mcpgw:///file:///x', 'mcpgw://%zz/file:///x', 'file:///x', 'mcpgw://hr']) {
    assert.equal(parseGatewayUri(bad), undefined, bad);
  }
  // The public helper reads the same way.
  assert.deepEqual(fromGatewayUri('mcpgw://h%72/file:///./secret.txt'), { server: 'hr', uri: 'file:///secret.txt' });
});

test('canonicalName: names in NFC, without invisible characters; case is kept (routing is case-sensitive)', () => {
  assert.equal(canonicalName('local_echo'), 'local_echo');
  assert.equal(canonicalName('Local_Echo'), 'Local_Echo');
  for (const bad of ['local_echo\u200b', '\u202elocal_echo', 'local echo', 'local_echo\n', 'cafe\u0301'])
    assert.equal(canonicalName(bad), undefined, JSON.stringify(bad));
  assert.equal(canonicalName('caf\u00e9'), 'caf\u00e9');
});

test('normalisePercent and canonicalGlob: rules over gateway URIs are spelt as the URIs are', () => {
  assert.equal(normalisePercent('%7e%2f%41'), '~%2FA');
  assert.equal(canonicalGlob('MCPGW://h%72/*'), 'mcpgw://hr/*');
  assert.equal(canonicalGlob('mcpgw://hr/file:///secret*'), 'mcpgw://hr/file:///secret*');
  assert.equal(canonicalGlob('*_delete*'), '*_delete*');
  // A rule that could never match is refused at start, with the spelling that would.
  assert.throws(
    () => checkPolicyConfig({ visibility: [{ deny: ['local_*', 'mcpgw://h%72/*'] }] }),
    (e: Error) => e instanceof PolicyConfigError && e.message.includes('policy.visibility.rules[0].deny[1]') && e.message.includes('"mcpgw://hr/*"'),
  );
  assert.throws(
    () => checkPolicyConfig({ limits: { rules: [{ items: ['mcpgw://hr/file:///my notes.txt'], limit: 1, windowMs: 1000 }] } }),
    /mcpgw:\/\/hr\/file:\/\/\/my%20notes\.txt/,
  );
  checkPolicyConfig({ visibility: [{ allow: ['mcpgw://hr/file:///*', 'hr_*'] }] });
});
