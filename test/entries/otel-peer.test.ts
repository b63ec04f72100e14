// @opentelemetry/api is an optional peer: only mcpkit/otel may load it. Every other entry's
// module graph (dynamic imports included) must not reach it, so an application that does not
// trace never needs it installed and pays nothing for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, ROOT, walk } from './graph.js';

const entries = readdirSync(join(ROOT, 'src/entries')).filter((f) => f.endsWith('.ts'));

test('no entry but mcpkit/otel imports @opentelemetry/*', () => {
  for (const file of entries) {
    if (file === 'otel.ts') continue;
    const { problems } = walk(`src/entries/${file}`, (_path, facts) =>
      facts.bare.filter((b) => b.specifier.startsWith('@opentelemetry/')).map((b) => `imports ${b.specifier}`),
    );
    assert.equal(problems.length, 0, `${file}:\n${describe(problems)}`);
  }
});

test('mcpkit/otel does import @opentelemetry/api (the check above can see it)', () => {
  const { problems } = walk('src/entries/otel.ts', (_path, facts) => facts.bare.filter((b) => b.specifier === '@opentelemetry/api').map((b) => b.specifier));
  assert.ok(problems.length > 0);
});
