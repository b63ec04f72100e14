// What apps() and the `ui` tool option refuse where they are written, with a message that says
// what to fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { apps, type AppResource } from '../../../src/extensions/apps/extension.js';
import type { ToolConfig } from '../../../src/server/tools.js';

const server = () => new McpServer({ name: 'reg', version: '1.0.0', extensions: [apps()] });
const tool = (config: ToolConfig) => server().tool('t', config, () => 'ok');
const resource = (def: Partial<AppResource>) => apps({ resources: [{ uri: 'ui://a/v.html', name: 'v', html: '<html></html>', ...def } as AppResource] });

test('apps: tool settings that cannot work are refused at registration', () => {
  assert.throws(() => tool({ ui: { resourceUri: 'https://example.com/v.html' } }), /Tool "t": resourceUri must be a ui:\/\/ URI/);
  assert.throws(() => tool({ _meta: { 'ui/resourceUri': 'file:///v.html' } }), /resourceUri must be a ui:\/\/ URI/);
  assert.throws(() => tool({ ui: { visibility: [] } }), /visibility must be a non-empty list of "model" and\/or "app"/);
  assert.throws(() => tool({ ui: { visibility: ['agent' as 'model'] } }), /visibility must be/);
  assert.throws(() => tool({ ui: { visibility: ['app', 'app'] } }), /visibility must be/);
  assert.throws(() => tool({ _meta: { ui: { resourceUri: 'ui://a/v.html', csp: {} } } }), /csp belongs on the ui:\/\/ resource/);
  assert.throws(() => tool({ _meta: { ui: 'ui://a/v.html' } }), /_meta.ui must be an object/);
  assert.doesNotThrow(() => tool({ ui: { resourceUri: 'ui://a/v.html', visibility: ['app'] } }));
});

test('apps: the ui option without the extension installed is refused by the core', () => {
  const bare = new McpServer({ name: 'bare', version: '1.0.0' });
  assert.throws(() => bare.tool('t', { ui: { resourceUri: 'ui://a/v.html' } }, () => 'ok'), /unknown option "ui"/);
});

test('apps: resource definitions are checked', () => {
  assert.throws(() => resource({ uri: 'https://a/v.html' }), /uri must be a ui:\/\/ URI/);
  assert.throws(() => resource({ name: '' }), /name must be a non-empty string/);
  assert.throws(() => resource({ html: 42 as unknown as string }), /html must be a string or a function/);
  assert.throws(() => resource({ ui: { csp: { connectDomains: 'https://x' as unknown as string[] } } }), /csp.connectDomains must be a list of origins/);
  assert.throws(() => resource({ ui: { permissions: { camera: true as unknown as Record<string, never> } } }), /permissions.camera must be \{\}/);
  assert.throws(() => resource({ ui: { prefersBorder: 'yes' as unknown as boolean } }), /prefersBorder must be a boolean/);
  assert.throws(() => resource({ _meta: { ui: {} } }), /give the UI settings as ui, not _meta.ui/);
  assert.throws(
    () =>
      apps({
        resources: [
          { uri: 'ui://a/v.html', name: 'v', html: '' },
          { uri: 'ui://a/v.html', name: 'w', html: '' },
        ],
      }),
    /given twice/,
  );
});
