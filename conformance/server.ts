// The "everything server" the official MCP conformance suite (@modelcontextprotocol/conformance,
// `server` mode) runs its scenarios against. It uses only mcpkit's public API.
//
//   node --import tsx conformance/server.ts --port 3100   →  http://127.0.0.1:3100/mcp
//
// Inventory and expectations: /work/shared/conformance.md, Part 1 §a.2/§a.3 (handshake era) and
// Part 2 §3 (the 2026-07-28 era, served on the same /mcp: §3.12 lists the extra tools). Prints
// `mcpkit conformance server listening on <url>` once it accepts connections.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer, skills, tasks, type ContentBlock, type RequestContext } from '../src/entries/server.js';
import { serve, skillDirectory } from '../src/entries/node.js';
import { NAME_FORM, registerTaskTools } from './server-tasks.js';

// A 1×1 red PNG and a 44-byte WAV header (zero samples).
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';
const WAV_EMPTY = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createConformanceServer(): McpServer {
  // The sep-2640-skills-* scenarios read the skills in conformance/skills/ (the first one listed,
  // acme/billing/refunds, has a subdirectory for the directory-read checks).
  const skillsDir = fileURLToPath(new URL('./skills', import.meta.url));
  const server = new McpServer({
    name: 'mcpkit-conformance-server',
    version: '0.1.0',
    extensions: [tasks(), skills({ skills: skillDirectory(skillsDir) })],
  });

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
      description: 'A tool whose input schema is raw JSON Schema 2020-12 ($defs, $anchor, $ref, allOf/anyOf, if/then/else, additionalProperties)',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            $anchor: 'addressDef',
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        // SEP-2106: composition and conditional keywords, kept verbatim in tools/list.
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
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

  // ------------------------------------------------------------------ tools: 2026-07-28 diagnostics
  //
  // Conformance Part 2 §3.2/§3.6–§3.8/§3.12. In the 2026-07-28 era ctx.elicit/sample/roots become
  // `input_required` rounds under the given key (and a missing capability is -32021); in the
  // handshake era the same calls are real server-to-client requests.

  server.tool(
    'test_missing_capability',
    { description: 'Needs the client to declare sampling (2026-07-28: -32021 with requiredCapabilities {sampling: {}} otherwise)' },
    async (_args, ctx) => {
      const result = await ctx.sample({ messages: [userText('Say hello')], maxTokens: 20 }, { key: 'greeting' });
      return `Sampled: ${sampledText(result)}`;
    },
  );

  server.tool(
    'test_streaming_elicitation',
    { description: 'Reports progress, then asks for a name (2026-07-28: an input_required round, never a request on the stream)' },
    async (_args, ctx) => {
      await ctx.progress(1, 2, 'asking for a name');
      const result = await ctx.elicit(NAME_FORM, { key: 'user_name' });
      return `Hello, ${String(result.content?.name ?? 'stranger')}!`;
    },
  );

  server.tool('test_logging_tool', { description: 'Logs three messages (only when the request asked for a log level)' }, async (_args, ctx) => {
    await ctx.log('info', 'test_logging_tool started');
    await ctx.log('info', 'test_logging_tool working');
    await ctx.log('info', 'test_logging_tool finished');
    return 'Logging tool finished';
  });

  // The trigger tools change what tools/list and prompts/list describe (never their names or
  // order), which sends notifications/{tools,prompts}/list_changed to every listener.
  let changes = 0;
  const changing = server.tool('test_changing_tool', { description: 'A tool whose description test_trigger_tool_change rewrites' }, () => 'unchanged');
  server.tool('test_trigger_tool_change', { description: 'Changes the tool list (sends notifications/tools/list_changed)' }, () => {
    changing.update({ description: `A tool whose description test_trigger_tool_change rewrites (change ${++changes})` });
    return 'Tool list changed';
  });

  server.tool(
    'test_x_mcp_header',
    {
      description: 'Echoes a region mirrored in the Mcp-Param-Region header (SEP-2243)',
      input: {
        type: 'object',
        properties: { region: { type: 'string', description: 'A region name', 'x-mcp-header': 'Region' } },
      },
    },
    (args) => `Region: ${typeof args.region === 'string' ? args.region : '(none)'}`,
  );

  // ------------------------------------------------------------------ tools: input_required (SEP-2322)

  server.tool('test_input_required_result_elicitation', { description: 'One elicitation round (key user_name), then a greeting' }, async (_args, ctx) => {
    const result = await ctx.elicit(NAME_FORM, { key: 'user_name' });
    return `Hello, ${String(result.content?.name ?? 'stranger')}!`;
  });

  server.tool('test_input_required_result_sampling', { description: 'One sampling round (key capital_question)' }, async (_args, ctx) => {
    const result = await ctx.sample({ messages: [userText('What is the capital of France?')], maxTokens: 100 }, { key: 'capital_question' });
    return `The model says: ${sampledText(result)}`;
  });

  server.tool('test_input_required_result_list_roots', { description: 'One roots/list round (key client_roots)' }, async (_args, ctx) => {
    const roots = await ctx.roots({ key: 'client_roots' });
    return `Client roots: ${roots.map((r) => `${r.name ?? r.uri} (${r.uri})`).join(', ') || '(none)'}`;
  });

  server.tool('test_input_required_result_request_state', { description: 'One confirmation round (key confirm) carrying requestState' }, async (_args, ctx) => {
    const result = await ctx.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    // Reaching this line means the sealed requestState was verified (HMAC, expiry, same request).
    return `state-ok: confirmed=${String(result.content?.ok ?? false)}`;
  });

  server.tool('test_input_required_result_multiple_inputs', { description: 'Elicitation, sampling and roots asked in one round' }, async (_args, ctx) => {
    // Asked together (not one after another) so the three land in the same input_required result.
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit(NAME_FORM, { key: 'user_name' }),
      ctx.sample({ messages: [userText('Generate a greeting')], maxTokens: 50 }, { key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    return `${sampledText(greeting)} ${String(name.content?.name ?? 'stranger')} (${roots.length} root${roots.length === 1 ? '' : 's'})`;
  });

  server.tool('test_input_required_result_multi_round', { description: 'Two elicitation rounds (step1, step2), then complete' }, async (_args, ctx) => {
    const step1 = await ctx.elicit({ ...NAME_FORM, message: 'Step 1: What is your name?' }, { key: 'step1' });
    const step2 = await ctx.elicit(
      {
        message: 'Step 2: What is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      },
      { key: 'step2' },
    );
    return `${String(step1.content?.name ?? 'stranger')} likes ${String(step2.content?.color ?? 'no color')}`;
  });

  server.tool('test_input_required_result_tampered_state', { description: 'One round whose requestState is HMAC-protected' }, async (_args, ctx) => {
    const result = await ctx.elicit(NAME_FORM, { key: 'user_name' });
    return `Hello, ${String(result.content?.name ?? 'stranger')}!`;
  });

  server.tool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for what the request declared (elicitation, sampling, roots)' },
    async (_args, ctx) => {
      const caps = ctx.clientCapabilities;
      const asked: Array<Promise<string>> = [];
      if (caps.elicitation) asked.push(ctx.elicit(NAME_FORM, { key: 'user_name' }).then((r) => `name=${String(r.content?.name ?? '')}`));
      if (caps.sampling) {
        asked.push(ctx.sample({ messages: [userText('Generate a greeting')], maxTokens: 50 }, { key: 'greeting' }).then((r) => `greeting=${sampledText(r)}`));
      }
      if (caps.roots) asked.push(ctx.roots({ key: 'client_roots' }).then((r) => `roots=${r.length}`));
      if (asked.length === 0) return 'The client declared no capability to ask with';
      return (await Promise.all(asked)).join(', ');
    },
  );

  registerTaskTools(server);

  // ------------------------------------------------------------------ resources

  server.resource(
    'Static Text Resource',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );

  server.resource('Static Binary Resource', 'test://static-binary', { description: 'A static binary resource (1×1 PNG)', mimeType: 'image/png' }, () => ({
    blob: PNG_1X1,
    mimeType: 'image/png',
  }));

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

  // The prompt whose description test_trigger_prompt_change rewrites.
  const changingPrompt = server.prompt(
    'test_changing_prompt',
    { description: 'A prompt whose description test_trigger_prompt_change rewrites' },
    () => 'unchanged',
  );
  let promptChanges = 0;
  server.tool('test_trigger_prompt_change', { description: 'Changes the prompt list (sends notifications/prompts/list_changed)' }, () => {
    changingPrompt.update({ description: `A prompt whose description test_trigger_prompt_change rewrites (change ${++promptChanges})` });
    return 'Prompt list changed';
  });

  server.prompt(
    'test_input_required_result_prompt',
    { description: 'Asks for context (key user_context) before it renders (SEP-2322)' },
    async (_args, ctx) => {
      const result = await ctx.elicit(
        {
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        },
        { key: 'user_context' },
      );
      return `Answer with this context in mind: ${String(result.content?.context ?? '(none)')}`;
    },
  );

  return server;
}

function userText(text: string) {
  return { role: 'user' as const, content: { type: 'text' as const, text } };
}

function sampledText(result: { content: unknown }): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  return blocks
    .map((b) => (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : ''))
    .join('');
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
