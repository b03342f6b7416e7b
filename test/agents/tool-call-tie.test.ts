// sensor: true, with the default --capture agents: it stores only the agents' cgroups the test
// binds, so it runs beside other files (test/support/run-suites.mjs):
// run-suites: capture agents only
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cgroup2MountPoint, ownCgroupPath } from '../../src/provenance/record/cgroup-root.js';
import { useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { awaitEvents, type StoredEvent } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';
import { eventually } from '../support/eventually.js';
import { agentMissing } from '../support/agents/installed-agents.js';
import { runAgent } from '../support/agents/run-agent.js';
import {
  argvOf,
  bindCgroup,
  hookCommand,
  runSimulatedAgent,
  useAgentCgroup,
} from '../support/agents/simulated-claude.js';

const token = 'tool-call-tie-token';
const auth = { authorization: `Bearer ${token}` };
const session = 'tie-session';

describe('the kernel account of a hook tool call', function () {
  const work = useTempDir('provd-tie-', { per: 'suite' });
  const agentCgroup = useAgentCgroup(`provd-tie-test-${process.pid}`);
  const shared = useSharedDaemon({ sensor: true, authToken: token });

  describe('of a simulated Claude Code session in a bound cgroup', function () {
    let events: StoredEvent[] = [];
    let answers: Record<string, unknown>[] = [];
    const paths = { shellOut: '', agentWrite: '', fdWrite: '', stolen: '' };
    before(async function () {
      const { daemon } = shared;
      paths.shellOut = join(work.path, 'shell-out.txt');
      paths.agentWrite = join(work.path, 'agent-written.txt');
      paths.fdWrite = join(work.path, 'fd-written.txt');
      paths.stolen = join(work.path, 'stolen.txt');
      // the agent's cgroup bound to its run by the control plane, as provd watch binds it
      await bindCgroup(daemon, auth, session, 'agent', agentCgroup.path);
      const parallel = `sleep 0.3; echo parallel-${process.pid} > /dev/null`;
      answers = await runSimulatedAgent(agentCgroup.path, work.path, daemon.dataDir, session, [
        [
          {
            id: 'toolu_shell',
            tool: 'Bash',
            command: `echo tied > ${paths.shellOut} && cat ${paths.shellOut}`,
          },
        ],
        [
          {
            id: 'toolu_write',
            tool: 'Write',
            file_path: paths.agentWrite,
            content: 'written by the agent\n',
          },
        ],
        [
          {
            id: 'toolu_fd_write',
            tool: 'Write',
            file_path: paths.fdWrite,
            content: 'written through a directory fd\n',
            via: 'dir_fd',
          },
        ],
        [
          { id: 'toolu_par_1', tool: 'Bash', command: parallel },
          { id: 'toolu_par_2', tool: 'Bash', command: parallel },
        ],
        [{ id: 'toolu_denied', tool: 'Bash', command: `cat /etc/shadow > ${paths.stolen}` }],
      ]);
      events = await awaitEvents(daemon, session, auth, (all) => {
        const written = all.filter((event) => event.attrs['path'] === paths.agentWrite);
        const parallelShells = all.filter(
          (event) => event.type === 'execve' && argvOf(event).includes('parallel-'),
        );
        return (
          written.some((event) => event.correlation.method === 'hook_path_time') &&
          all.some((event) => event.correlation.confidence === 0.8) &&
          all.some(
            (event) => event.tool_call_id === 'toolu_shell' && event.attrs['path'] === paths.shellOut,
          ) &&
          parallelShells.length >= 2 &&
          parallelShells.every((event) => event.correlation.method.startsWith('hook_'))
        );
      });
    });

    it('ties the Bash call shell execve and the file it wrote to the call, kernel_correlated, by hook_exec_match', function () {
      const shell = events.find(
        (event) =>
          event.type === 'execve' &&
          argvOf(event).startsWith('/bin/bash -c -l') &&
          argvOf(event).includes(paths.shellOut),
      );
      assert.ok(shell, 'the call shell was seen');
      assert.equal(shell.tool_call_id, 'toolu_shell');
      assert.equal(shell.correlation.method, 'hook_exec_match');
      assert.equal(shell.correlation.evidence_level, 'kernel_correlated');
      // the shell's child (cat) and the write of its redirection belong to the call too
      const cat = events.find(
        (event) => event.type === 'execve' && argvOf(event) === `cat ${paths.shellOut}`,
      );
      assert.equal(cat?.tool_call_id, 'toolu_shell');
      const write = events.find(
        (event) => event.type === 'file_write' && event.attrs['path'] === paths.shellOut,
      );
      assert.equal(write?.tool_call_id, 'toolu_shell');
      assert.equal(write?.correlation.method, 'hook_exec_match');
      assert.equal(write?.correlation.evidence_level, 'kernel_correlated');
    });

    it('ties the agent own write of a Write call path to the call by hook_path_time', function () {
      const write = events.find(
        (event) => event.type === 'file_write' && event.attrs['path'] === paths.agentWrite,
      );
      assert.ok(write, 'the agent write was seen');
      assert.equal(write.tool_call_id, 'toolu_write');
      assert.equal(write.correlation.method, 'hook_path_time');
      assert.equal(write.correlation.evidence_level, 'kernel_correlated');
    });

    it('ties a write through a directory fd by its name, the temp suffix NAME.tmp.PID.HEX removed, by hook_path_time at 0.8 (a name, not a path)', function () {
      const name = basename(paths.fdWrite);
      const byFd = events.filter((event) =>
        [event.attrs['path'], event.attrs['new_path']].some(
          (path) => typeof path === 'string' && path.startsWith('/proc/self/fd/'),
        ),
      );
      const temp = byFd.find(
        (event) =>
          event.type === 'file_write' &&
          /\/fd-written\.txt\.tmp\.[0-9]+\.[0-9a-f]{12}$/.test(String(event.attrs['path'])),
      );
      assert.ok(temp, `the temp file's write was seen: ${JSON.stringify(byFd.map((event) => event.attrs))}`);
      const renamed = byFd.find(
        (event) => event.type === 'file_rename' && String(event.attrs['new_path']).endsWith(`/${name}`),
      );
      assert.ok(renamed, 'the rename over the name was seen');
      for (const event of [temp, renamed]) {
        assert.equal(event.tool_call_id, 'toolu_fd_write', JSON.stringify(event.attrs));
        assert.equal(event.correlation.method, 'hook_path_time', JSON.stringify(event.attrs));
        assert.equal(event.correlation.confidence, 0.8);
      }
    });

    it('says two parallel calls of one command are ambiguous, and ties them to neither', function () {
      const shells = events.filter(
        (event) =>
          event.type === 'execve' &&
          argvOf(event).startsWith('/bin/bash -c -l') &&
          argvOf(event).includes('parallel-'),
      );
      assert.equal(shells.length, 2, JSON.stringify(shells.map(argvOf)));
      for (const shell of shells) {
        assert.equal(shell.correlation.method, 'hook_exec_ambiguous');
        assert.equal(shell.tool_call_id, 'agent');
        assert.equal((shell.correlation as { confidence?: number }).confidence, 0.5);
      }
    });

    it('sees no process of a denied call, and ties nothing to it', function () {
      assert.deepEqual(answers.find((answer) => answer['id'] === 'toolu_denied')?.['ran'], false);
      assert.deepEqual(
        events.filter((event) => argvOf(event).includes(paths.stolen)),
        [],
      );
      assert.deepEqual(
        events.filter((event) => event.tool_call_id === 'toolu_denied'),
        [],
      );
    });

    it('explains a tool call: each event, why it belongs, and the call decision, input and result', async function () {
      const { status, body } = await request(shared.daemon.url, `/v1/graph/explain?tool-call=toolu_shell`, {
        headers: auth,
      });
      assert.equal(status, 200, JSON.stringify(body));
      const account = body['tool_call'] as Record<string, unknown>;
      assert.equal((account['decision'] as Record<string, unknown>)['answered'], 'allow');
      assert.match(JSON.stringify(account['input']), /shell-out\.txt/);
      assert.notEqual(account['result'], null);
      const listed = account['events'] as {
        type: string;
        method: string;
        evidence_level: string;
        chain: unknown[];
      }[];
      assert.ok(listed.some((event) => event.type === 'execve' && event.method === 'hook_exec_match'));
      assert.ok(listed.every((event) => event.evidence_level === 'kernel_correlated'));
      const ambiguous = await request(shared.daemon.url, `/v1/graph/explain?tool-call=toolu_par_1`, {
        headers: auth,
      });
      const other = ambiguous.body['tool_call'] as Record<string, unknown>;
      assert.equal((other['events'] as unknown[]).length, 0);
      assert.ok(
        (other['ambiguous'] as { candidates: string[] }[]).some((entry) =>
          entry.candidates.includes('toolu_par_2'),
        ),
      );
    });

    it('leaves the run verifying ok', async function () {
      const { status, body } = await request(shared.daemon.url, `/v1/graph/verify?run=${session}`, {
        headers: auth,
      });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body['status'], 'ok', JSON.stringify(body['issues']));
    });
  });

  describe('of the real Claude Code CLI', function () {
    before(function () {
      const missing = agentMissing('claude');
      if (missing === undefined) return;
      process.stderr.write(`      skipped: ${missing}\n`);
      this.skip();
    });

    it('ties its Bash call shell and the file it wrote to the call, kernel_correlated', async function () {
      const { daemon } = shared;
      const run = 'tie-real-claude';
      const real = join(work.path, 'real-claude.txt');
      const cgroup = agentCgroup.path;
      await bindCgroup(daemon, auth, run, 'claude', cgroup);
      // provd's hook command over the hook socket, the session's events going to the bound run
      // (PROVD_RUN): a watched process's writes over HTTP are refused
      const hook = hookCommand(daemon.dataDir);
      // the CLI starts in the agent's cgroup: this process joins it while the CLI is spawned, then leaves
      const home = readFileSync('/proc/self/cgroup', 'utf8');
      const own = join(
        cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8'))!,
        ownCgroupPath(home)!,
      );
      writeFileSync(join(cgroup, 'cgroup.procs'), String(process.pid));
      let agent: ReturnType<typeof runAgent>;
      try {
        agent = runAgent('claude', {
          cwd: work.path,
          prompt: 'write a file',
          script: [
            { calls: [{ id: 'toolu_real_1', kind: 'shell', command: `echo real > ${real}` }] },
            { text: 'Done.' },
          ],
          hooks: { PreToolUse: hook, PostToolUse: hook },
          env: { PROVD_RUN: run },
          timeoutMs: 120_000,
        });
        // leave once the CLI is in it (a process of the cgroup other than this one)
        await eventually(
          'the Claude Code CLI in the agent cgroup',
          () =>
            readFileSync(join(cgroup, 'cgroup.procs'), 'utf8')
              .split('\n')
              .filter((pid) => pid !== '' && pid !== String(process.pid)),
          (pids) => pids.length > 0,
          { everyMs: 5 },
        );
      } finally {
        writeFileSync(join(own, 'cgroup.procs'), String(process.pid));
      }
      const done = await agent;
      assert.equal(done.exitCode, 0, done.stderr.slice(-2000));
      const events = await awaitEvents(daemon, run, auth, (all) =>
        all.some((event) => event.attrs['path'] === real && event.tool_call_id === 'toolu_real_1'),
      );
      const shell = events.find(
        (event) => event.type === 'execve' && argvOf(event).includes(`echo real > ${real}`),
      );
      assert.ok(shell, JSON.stringify(events.filter((event) => event.type === 'execve').map(argvOf)));
      assert.equal(shell.tool_call_id, 'toolu_real_1', argvOf(shell));
      assert.equal(shell.correlation.method, 'hook_exec_match');
      assert.equal(shell.correlation.evidence_level, 'kernel_correlated');
      const write = events.find((event) => event.type === 'file_write' && event.attrs['path'] === real);
      assert.equal(write?.tool_call_id, 'toolu_real_1');
    });
  });
});
