// The "everything server" the official MCP conformance suite (@modelcontextprotocol/conformance,
// `server` mode) runs its scenarios against. It uses only mcpkit's public API.
//
//   node --import tsx conformance/server.ts --port 3100   →  http://127.0.0.1:3100/mcp
//
// Inventory and expectations: /work/shared/conformance.md, Part 1 §a.2/§a.3. Prints
// `mcpkit conformance server listening on <url>` once it accepts connections.
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer, type ContentBlock, type RequestContext } from '../src/index.js';
import { serve } from '../src/transports/http/index.js';

// A 1×1 red PNG and a 44-byte WAV header (zero samples).
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
const WAV_EMPTY = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createConformanceServer(): McpServer {
  const server = new McpServer({ name: 'mcpkit-conformance-server', version: '0.1.0' });

  // ------------------------------------------------------------------ tools: content types

  server.tool('test_simple_text', { description: 'Returns a simple text response' }, () => 'This is a simple text response for testing.');

  server.tool('test_image_content', { description: 'Returns an image (1×1 PNG)' }, (): ContentBlock[] => [
    { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
  ]);

  server.tool('test_audio_content', { description: 'Returns audio (an empty WAV file)' }, (): ContentBlock[] => [
    { type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' },
  ]);

  server.tool('test_embedded_resource', { description: 'Returns an embedded text resource' }, (): ContentBlock[] => [
    {
      type: 'resource',
      resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
    },
  ]);

  server.tool('test_multiple_content_types', { description: 'Returns text, an image and an embedded resource' }, (): ContentBlock[] => [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: {
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify({ test: 'data', value: 123 }),
      },
    },
  ]);

  // ------------------------------------------------------------------ tools: notifications

  server.tool('test_tool_with_logging', { description: 'Sends three log messages while it runs' }, async (_args, ctx) => {
    await ctx.log('info', 'Tool execution started');
    await sleep(50);
    await ctx.log('info', 'Tool processing data');
    await sleep(50);
    await ctx.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  });

  server.tool('test_tool_with_progress', { description: 'Reports progress 0, 50, 100 of 100' }, async (_args, ctx) => {
    for (const step of [0, 50, 100]) {
      await ctx.progress(step, 100, `Completed step ${step} of 100`);
      if (step < 100) await sleep(50);
    }
    return `Progress test completed (token ${JSON.stringify(ctx.meta?.progressToken ?? null)})`;
  });

  server.tool('test_error_handling', { description: 'Always fails with a tool error (isError: true)' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  // ------------------------------------------------------------------ tools: server → client

  server.tool(
    'test_sampling',
    { description: 'Asks the client to sample an LLM completion', input: { prompt: z.string().describe('The prompt to send to the LLM') } },
    async ({ prompt }, ctx) => {
      const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
      const content = result.content as { type: string; text?: string };
      const text = content.type === 'text' ? (content.text ?? '') : `[${content.type} content]`;
      return `LLM response: ${text}`;
    },
  );

  server.tool(
    'test_elicitation',
    { description: 'Asks the user for a username and an email', input: { message: z.string().describe('The message shown to the user') } },
    async ({ message }, ctx) => {
      const result = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "The user's username" },
            email: { type: 'string', description: "The user's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );

  server.tool('test_elicitation_sep1034_defaults', { description: 'Elicitation whose fields all have defaults (SEP-1034)' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });

  server.tool('test_elicitation_sep1330_enums', { description: 'Elicitation with every enum schema form (SEP-1330)' }, async (_args, ctx) => {
    const result = await ctx.elicit({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one titled option',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy enumNames)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select several options',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select several titled options',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    });
    return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
  });

  // ------------------------------------------------------------------ tools: schema, SSE

  server.tool(
    'json_schema_2020_12_tool',
    {
      description: 'A tool whose input schema is raw JSON Schema 2020-12 ($defs, $ref, additionalProperties)',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
        },
        additionalProperties: false,
      },
    },
    (args) => `JSON Schema 2020-12 tool called with ${JSON.stringify(args)}`,
  );

  // SEP-1699 wants this tool to close its SSE stream before the result and let the client
  // resume with GET + Last-Event-ID. mcpkit has no public way for a handler to close its own
  // stream yet, so it only makes the answer an SSE stream (a log message before the result,
  // so the priming event and `retry:` are sent) and answers on that stream.
  server.tool('test_reconnection', { description: 'SSE polling probe (SEP-1699); answers on its open stream' }, async (_args, ctx: RequestContext) => {
    await ctx.log('info', 'test_reconnection started');
    await sleep(100);
    return 'Reconnection test completed';
  });

  // ------------------------------------------------------------------ resources

  server.resource(
    'Static Text Resource',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );

  server.resource(
    'Static Binary Resource',
    'test://static-binary',
    { description: 'A static binary resource (1×1 PNG)', mimeType: 'image/png' },
    () => ({ blob: PNG_1X1, mimeType: 'image/png' }),
  );

  server.resourceTemplate(
    'Resource Template',
    'test://template/{id}/data',
    { description: 'A resource template with an id parameter', mimeType: 'application/json' },
    (_uri, vars) => {
      const id = String(vars.id);
      return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
    },
  );

  server.resource(
    'Watched Resource',
    'test://watched-resource',
    { description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
    () => 'Watched resource content',
  );

  // ------------------------------------------------------------------ prompts

  server.prompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => 'This is a simple prompt for testing.');

  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments',
      args: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: {
        arg1: (value) => ['paris', 'park', 'party', 'test', 'testValue1'].filter((v) => v.startsWith(value)),
        arg2: (value) => ['testValue2'].filter((v) => v.startsWith(value)),
      },
    },
    ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  );

  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a resource',
      args: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => [
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  );

  server.prompt('test_prompt_with_image', { description: 'A prompt with image content' }, () => [
    { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
  ]);

  return server;
}

function portFromArgs(argv: readonly string[]): number {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  const raw = i < 0 ? process.env.PORT : argv[i].includes('=') ? argv[i].slice('--port='.length) : argv[i + 1];
  if (raw === undefined) return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${raw}`);
  return port;
}

async function main(): Promise<void> {
  const server = createConformanceServer();
  const running = await serve(server, { port: portFromArgs(process.argv.slice(2)), host: '127.0.0.1' });
  process.stdout.write(`mcpkit conformance server listening on ${running.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void running.close().finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
