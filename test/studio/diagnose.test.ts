// What the studio says when a connection fails, for real failures: a command that is not there, a
// server that exits at start with its reason on stderr, an HTTP endpoint that answers 404, an
// address where nothing listens; and a diagnosis given by a doctor through StudioOptions.diagnose.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveTarget } from '../../src/pool/targets.js';
import type { ServerView } from '../../src/studio/api-types.js';
import { fromDoctor, type DoctorFn } from '../../src/studio/diagnose.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { waitFor } from '../support/index.js';
import { startTestStudio } from './helpers.js';

describe('a failed connection, explained', () => {
  let studio: RunningStudio;
  let notMcp: Server;
  let notMcpUrl: string;
  let closedPort: number;
  before(async () => {
    notMcp = createServer((_req, res) => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no such page here');
    });
    await new Promise<void>((r) => notMcp.listen(0, '127.0.0.1', r));
    notMcpUrl = `http://127.0.0.1:${(notMcp.address() as AddressInfo).port}/mcp`;
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const t = (s: string) => resolveTarget(s, {});
    studio = await startTestStudio({
      servers: [
        { name: 'missing', origin: 'command-line', target: t('mcpkit-studio-missing-command') },
        { name: 'exits', origin: 'command-line', target: t(`"${process.execPath}" -e "console.error('boom: API_KEY is not set'); process.exit(3)"`) },
        { name: 'not-mcp', origin: 'command-line', target: t(notMcpUrl) },
        { name: 'nobody', origin: 'command-line', target: t(`http://127.0.0.1:${closedPort}/mcp`) },
      ],
    });
    await studio.ready;
  });
  after(async () => {
    await studio?.close();
    notMcp?.close();
  });

  const diagnosis = (name: string) => waitFor(() => studio.hub.view(name)?.diagnosis, `the diagnosis of ${name}`);

  test('a command that is not installed', async () => {
    const d = await diagnosis('missing');
    assert.equal(d.step, 'start the command');
    assert.match(d.problem, /mcpkit-studio-missing-command/);
    assert.match(d.fix ?? '', /PATH/);
  });

  test('a server that exits at start: its stderr is the evidence', async () => {
    const d = await diagnosis('exits');
    assert.match(d.problem, /exited with code 3/);
    assert.ok(
      d.evidence?.some((l) => l.includes('boom: API_KEY is not set')),
      JSON.stringify(d),
    );
  });

  test('an HTTP endpoint that is not MCP', async () => {
    const d = await diagnosis('not-mcp');
    assert.match(d.step, /HTTP POST \/mcp/);
    assert.match(d.problem, /404/);
    assert.match(d.fix ?? '', /path/);
  });

  test('an address where nothing listens', async () => {
    const d = await diagnosis('nobody');
    assert.equal(d.step, 'reach the server');
    assert.match(d.fix ?? '', /running/);
  });

  test("the doctor's diagnosis, adapted: its first failing step, and every step as evidence", async () => {
    const seen: unknown[] = [];
    // The doctor's shape (src/host/doctor, on its own branch until merged), answering as it does for a missing command.
    const doctor: DoctorFn = async (target, options) => {
      seen.push({ target, options });
      return {
        ok: false,
        steps: [{ step: 'spawn', ok: false, ms: 3.4, detail: 'spawn mcpkit-studio-missing-command ENOENT' }],
        failure: { step: 'spawn', summary: 'The command was not found', fix: 'Install it or give its full path' },
      };
    };
    const s = await startTestStudio({
      servers: [{ name: 'x', origin: 'command-line', target: resolveTarget('mcpkit-studio-missing-command --a', {}) }],
      diagnose: fromDoctor(doctor, { cwd: '/somewhere' }),
    });
    try {
      await s.ready;
      // The doctor is asked once the studio has given up (after its one retry); until then the error is read as it is.
      const d = await waitFor(() => (s.hub.view('x')?.diagnosis?.by === 'doctor' ? s.hub.view('x')?.diagnosis : undefined), "the doctor's diagnosis");
      assert.deepEqual(d, {
        by: 'doctor',
        step: 'spawn',
        problem: 'The command was not found',
        fix: 'Install it or give its full path',
        evidence: ['✖ spawn (3 ms): spawn mcpkit-studio-missing-command ENOENT'],
      });
      assert.deepEqual(seen[0], {
        target: { command: 'mcpkit-studio-missing-command', args: ['--a'], env: {}, cwd: undefined },
        options: { cwd: '/somewhere' },
      });
    } finally {
      await s.close();
    }
  });

  test('a doctor given to the studio is asked, with the target', async () => {
    const asked: string[] = [];
    const s = await startTestStudio({
      servers: [{ name: 'x', origin: 'command-line', target: resolveTarget('mcpkit-studio-missing-command', {}) }],
      diagnose: async (target) => {
        asked.push(target.kind === 'stdio' ? target.command : target.url);
        return { by: 'doctor', step: 'the doctor looked', problem: 'it is not installed', fix: 'install it' };
      },
    });
    try {
      await s.ready;
      const v: ServerView = await waitFor(() => (s.hub.view('x')?.diagnosis?.by === 'doctor' ? s.hub.view('x') : undefined), "the doctor's diagnosis");
      assert.equal(v.diagnosis?.by, 'doctor');
      assert.equal(v.diagnosis?.step, 'the doctor looked');
      // Once: not for the failure a retry followed.
      assert.deepEqual(asked, ['mcpkit-studio-missing-command']);
    } finally {
      await s.close();
    }
  });
});
