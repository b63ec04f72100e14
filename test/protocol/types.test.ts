import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse } from '../../src/jsonrpc/messages.js';
import {
  METHODS,
  type ClientNotificationMap,
  type ClientRequestMap,
  type MethodName,
  type NotificationMethod,
  type RequestMethod,
  type ServerNotificationMap,
  type ServerRequestMap,
} from '../../src/protocol/methods.js';
import { LOGGING_LEVELS } from '../../src/protocol/types.js';
import type {
  CallToolParams,
  CallToolResult,
  CreateMessageParams,
  CreateMessageResult,
  DiscoverResult,
  ElicitParams,
  InitializeParams,
  InitializeResult,
  InputRequiredResult,
  ListToolsResult,
  ReadResourceResult,
  SubscriptionsAcknowledgedParams,
} from '../../src/protocol/params.js';

// Compile-time: METHODS names every key of the four maps, and nothing else.
type Covered = [Exclude<RequestMethod | NotificationMethod, MethodName>] extends [never] ? true : false;
type NoExtras = [Exclude<MethodName, RequestMethod | NotificationMethod>] extends [never] ? true : false;
const covered: Covered = true;
const noExtras: NoExtras = true;

// Hand-written on purpose, so a key dropped from a map shows up here as well.
const CLIENT_REQUESTS: (keyof ClientRequestMap)[] = [
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
];
const SERVER_REQUESTS: (keyof ServerRequestMap)[] = ['ping', 'roots/list', 'sampling/createMessage', 'elicitation/create'];
const SERVER_NOTIFICATIONS: (keyof ServerNotificationMap)[] = [
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/elicitation/complete',
  'notifications/subscriptions/acknowledged',
  'notifications/tasks',
];
const CLIENT_NOTIFICATIONS: (keyof ClientNotificationMap)[] = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
];

test('METHODS covers every method and notification exactly once', () => {
  assert.equal(covered && noExtras, true);
  const values = Object.values(METHODS);
  assert.equal(new Set(values).size, values.length, 'duplicate method string');
  const expected = new Set<string>([...CLIENT_REQUESTS, ...SERVER_REQUESTS, ...SERVER_NOTIFICATIONS, ...CLIENT_NOTIFICATIONS]);
  assert.deepEqual(new Set<string>(values), expected);
});

test('LOGGING_LEVELS is in RFC 5424 order', () => {
  assert.deepEqual([...LOGGING_LEVELS], ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
});

test('sample wire messages typecheck against the protocol types', () => {
  // Legacy handshake.
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: METHODS.initialize,
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true }, sampling: { tools: {} }, elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'demo-client', version: '1.0.0', title: 'Demo' },
    } satisfies InitializeParams,
  } satisfies JsonRpcRequest;
  const initResult = {
    protocolVersion: '2025-11-25',
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, logging: {}, completions: {} },
    serverInfo: { name: 'demo-server', version: '2.1.0', icons: [{ src: 'https://example.com/i.png', sizes: ['48x48'] }] },
    instructions: 'Use the search tool first.',
  } satisfies InitializeResult;

  // Modern request: per-request _meta instead of a handshake.
  const call = {
    jsonrpc: '2.0',
    id: 'c-7',
    method: METHODS.toolsCall,
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        progressToken: 'p1',
      },
      name: 'get_weather',
      arguments: { city: 'Oslo' },
    } satisfies CallToolParams,
  } satisfies JsonRpcRequest;

  const needInput: InputRequiredResult = {
    resultType: 'input_required',
    inputRequests: {
      units: {
        method: 'elicitation/create',
        params: {
          message: 'Which units?',
          requestedSchema: {
            type: 'object',
            properties: {
              units: {
                type: 'string',
                oneOf: [
                  { const: 'c', title: 'Celsius' },
                  { const: 'f', title: 'Fahrenheit' },
                ],
              },
            },
            required: ['units'],
          },
        },
      },
    },
    requestState: 'opaque-abc',
  };
  const retry: CallToolParams = {
    ...call.params,
    inputResponses: { units: { action: 'accept', content: { units: 'c' } } },
    requestState: needInput.requestState,
  };
  const done: CallToolResult = {
    resultType: 'complete',
    content: [
      { type: 'text', text: '12°C' },
      { type: 'resource_link', uri: 'file:///w.json', name: 'w.json' },
    ],
    structuredContent: { temperature: 12 },
  };
  const response = { jsonrpc: '2.0', id: 'c-7', result: done } satisfies JsonRpcResultResponse;

  // resultType separates an input_required answer (and a task) from a finished one.
  const outcome = needInput as ClientRequestMap['tools/call']['result'];
  if (outcome.resultType === 'input_required') {
    assert.equal(outcome.requestState, 'opaque-abc');
  } else if (outcome.resultType === 'task') {
    assert.fail(`unexpected task ${outcome.taskId}`);
  } else {
    assert.fail(`unexpected ${outcome.content.length}`);
  }

  const tools: ListToolsResult = {
    tools: [{ name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    nextCursor: '',
    ttlMs: 60_000,
    cacheScope: 'public',
  };
  const discover: DiscoverResult = {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    ttlMs: 0,
    cacheScope: 'public',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'demo-server', version: '2.1.0' } },
  };
  const read: ReadResourceResult = { contents: [{ uri: 'file:///a.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' }] };

  const sampling: CreateMessageParams = {
    messages: [
      { role: 'user', content: { type: 'text', text: 'Weather in Oslo?' } },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'u1', content: [{ type: 'text', text: '12' }] }] },
    ],
    maxTokens: 200,
    toolChoice: { mode: 'auto' },
  };
  const sampled: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: 'It is 12°C.' }, model: 'm-1', stopReason: 'endTurn' };
  const urlElicit: ElicitParams = { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' };

  const ack = {
    jsonrpc: '2.0',
    method: METHODS.subscriptionsAcknowledged,
    params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 9 } } satisfies SubscriptionsAcknowledgedParams,
  } satisfies JsonRpcNotification;

  // @ts-expect-error tools/call needs a tool name
  const bad: CallToolParams = { arguments: {} };
  // @ts-expect-error a finished result cannot claim input_required
  const bad2: CallToolResult = { resultType: 'input_required', content: [] };

  const all = [init, initResult, call, retry, response, tools, discover, read, sampling, sampled, urlElicit, ack, bad, bad2];
  assert.equal(all.length, 14);
  assert.equal(JSON.parse(JSON.stringify(response)).result.content[0].text, '12°C');
});
