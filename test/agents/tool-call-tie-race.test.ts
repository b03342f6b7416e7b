// sensor: true, with the default --capture agents: it stores only the agent's cgroup the test
// binds, so it runs beside other files (test/support/run-suites.mjs):
// run-suites: capture agents only
/**
 * A tool call's window opens when its PreToolUse arrives, not when its write is built (0d3b289): the
 * write is built after the answer, and a daemon descheduled in between (load) built it after the
 * tool's shell had exec'd, which then fell before its call's window and stayed tied to the agent's
 * binding. The daemon here blocks its main thread after each PreToolUse's answer
 * (PROVD_FAULT_HOOK_WRITE_STALL_MS, a test fault read at its start), so the shell always runs first.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useSharedDaemon } from '../support/daemon.js';
import { awaitEvents, type StoredEvent } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';
import { argvOf, bindCgroup, runSimulatedAgent, useAgentCgroup } from '../support/agents/simulated-claude.js';

const token = 'tool-call-tie-race-token';
const auth = { authorization: `Bearer ${token}` };
const session = 'tie-race-session';
/** Long past the agent's reading of the answer and spawning of the call's shell, on a loaded host too. */
const stallMs = 3000;

describe('the kernel account of a tool call whose PreToolUse write is built late', function () {
  const work = useTempDir('provd-tie-race-', { per: 'suite' });
  const agentCgroup = useAgentCgroup(`provd-tie-race-test-${process.pid}`);
  const shared = useSharedDaemon({
    sensor: true,
    authToken: token,
    env: { PROVD_FAULT_HOOK_WRITE_STALL_MS: String(stallMs) },
  });

  it("ties the call's shell, which exec'd before the PreToolUse's write was built, to the call by hook_exec_match", async function () {
    const { daemon } = shared;
    const out = join(work.path, 'raced.txt');
    await bindCgroup(daemon, auth, session, 'agent', agentCgroup.path);
    const answers = await runSimulatedAgent(agentCgroup.path, work.path, daemon.dataDir, session, [
      [{ id: 'toolu_raced', tool: 'Bash', command: `echo raced > ${out} && cat ${out}` }],
    ]);
    assert.deepEqual(
      answers.map((answer) => [answer['id'], answer['ran']]),
      [['toolu_raced', true]],
    );
    const isShell = (event: StoredEvent): boolean =>
      event.type === 'execve' && argvOf(event).startsWith('/bin/bash -c -l') && argvOf(event).includes(out);
    // the write of its redirection and the shell are stored once their batch commits (softly waited for)
    const events = await awaitEvents(daemon, session, auth, (all) =>
      all.some((event) => isShell(event) && event.tool_call_id === 'toolu_raced'),
    );
    const shell = events.find(isShell);
    assert.ok(shell, `the call's shell was seen: ${JSON.stringify(events.map(argvOf))}`);
    assert.deepEqual(
      [shell.tool_call_id, shell.correlation.method, shell.correlation.evidence_level],
      ['toolu_raced', 'hook_exec_match', 'kernel_correlated'],
    );
    const write = events.find((event) => event.type === 'file_write' && event.attrs['path'] === out);
    assert.deepEqual([write?.tool_call_id, write?.correlation.method], ['toolu_raced', 'hook_exec_match']);
  });
});
