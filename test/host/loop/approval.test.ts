// The approval policy over real tool annotations: read-only tools run, destructive ones are put
// to the user (who may refuse), per-tool globs override both, `deny` refuses without asking,
// and without anyone to ask a call is refused with a message saying so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Host } from '../../../src/host/host.js';
import type { ApprovalRequest } from '../../../src/host/loop/types.js';
import type { McpServer } from '../../../src/server/mcp-server.js';
import { startLoopRig, textTurn, toolCallsTurn } from '../../support/index.js';

function tools(ran: string[]) {
  return (mcp: McpServer) => {
    const tool = (name: string, annotations: Record<string, boolean>) =>
      mcp.tool(name, { input: { path: z.string() }, annotations }, ({ path }) => {
        ran.push(name);
        return `${name} ${path}`;
      });
    tool('read_file', { readOnlyHint: true });
    tool('delete_file', { readOnlyHint: false, destructiveHint: true });
    tool('write_file', { readOnlyHint: false, destructiveHint: false });
    tool('fs_format', { readOnlyHint: true });
    tool('rm', { destructiveHint: true });
  };
}

const call = (name: string) => ({ name, arguments: { path: '/tmp/x' } });

test('auto for read-only, ask for destructive (the user says no to one), glob overrides, deny', async () => {
  const ran: string[] = [];
  const asked: ApprovalRequest[] = [];
  const rig = await startLoopRig({
    servers: { srv: tools(ran) },
    host: {
      approval: { tools: { 'fs_*': 'ask', rm: 'deny', 'srv/write_*': 'ask' } },
      interaction: {
        approve: async (request) => {
          asked.push(request);
          return request.tool !== 'delete_file';
        },
      },
    },
    script: [
      toolCallsTurn([call('read_file'), call('delete_file'), call('write_file'), call('fs_format'), call('rm')]),
      (req) => {
        const tools = req.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
        assert.equal(tools[0], 'read_file /tmp/x');
        assert.equal(tools[1], 'Error: The user did not allow calling delete_file.');
        assert.equal(tools[2], 'write_file /tmp/x');
        assert.equal(tools[3], 'fs_format /tmp/x');
        assert.equal(tools[4], 'Error: Calling rm is not allowed here (policy for "rm").');
        return textTurn('done');
      },
    ],
  });
  try {
    await rig.host.conversation().send('go');
    rig.llm.assertNoErrors();
    assert.deepEqual(ran.sort(), ['fs_format', 'read_file', 'write_file']);
    assert.deepEqual(asked.map((r) => [r.tool, r.reason]).sort(), [
      ['delete_file', 'destructive tool'],
      ['fs_format', 'policy for "fs_*"'],
      ['write_file', 'policy for "srv/write_*"'],
    ]);
    const request = asked.find((r) => r.tool === 'delete_file');
    assert.deepEqual(request?.arguments, { path: '/tmp/x' });
    assert.equal(request?.server, 'srv');
    assert.equal(request?.annotations?.destructiveHint, true);
    assert.deepEqual(
      rig
        .of('approval')
        .map((e) => [e.name, e.approved, e.by])
        .sort(),
      [
        ['delete_file', false, 'user'],
        ['fs_format', true, 'user'],
        ['read_file', true, 'policy'],
        ['rm', false, 'policy'],
        ['write_file', true, 'user'],
      ],
    );
  } finally {
    await rig.close();
  }
});

test('nobody to ask: a call the policy would ask about is refused with a message saying why', async () => {
  const ran: string[] = [];
  const rig = await startLoopRig({
    servers: { srv: tools(ran) },
    host: { approval: { default: 'deny', readOnly: 'ask' } },
    script: [
      toolCallsTurn([call('read_file'), call('write_file')]),
      (req) => {
        const tools = req.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
        assert.equal(tools[0], `Error: Calling read_file needs the user's approval (read-only tool), and there is no way to ask for it here.`);
        assert.equal(tools[1], 'Error: Calling write_file is not allowed here (default policy).');
        return textTurn('done');
      },
    ],
  });
  try {
    await rig.host.conversation().send('go');
    rig.llm.assertNoErrors();
    assert.deepEqual(ran, []);
  } finally {
    await rig.close();
  }
});

test('an approval policy with a value it does not know is refused when the Host is made', () => {
  const model = { provider: 'openai' as const, model: 'm', baseUrl: 'http://127.0.0.1:1/v1' };
  assert.throws(
    () => new Host({ model, approval: { tools: { x: 'maybe' as never } } }),
    /approval tools\["x"\] must be one of auto, ask, deny \(got "maybe"\)/,
  );
  assert.throws(() => new Host({ model, approval: { destructive: 'never' as never } }), /approval destructive must be one of/);
});
