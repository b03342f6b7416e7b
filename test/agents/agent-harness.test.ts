/**
 * The agent harness itself (test/support/agents/): each published agent CLI, driven headless
 * against its scripted model server, runs the script's tool calls for real, fires the hooks a test
 * configures with the script's tool-call ids, and lets a pre-tool hook deny a call so it never runs.
 * Skips, saying why, when .ci/install-agents has not installed the CLIs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { postToolEvent, preToolEvent } from '../support/agents/agent-config.js';
import { agentMissing } from '../support/agents/installed-agents.js';
import { AgentTimeoutError, runAgent, type AgentRun } from '../support/agents/run-agent.js';
import type { AgentName } from '../support/agents/script.js';
import { eventually, softDeadline } from '../support/eventually.js';
import { useTempDir } from '../support/temp-dir.js';

const timeoutMs = 120_000;
const agents: AgentName[] = ['claude', 'codex', 'gemini'];

/** The result the agent sent back for the call `id` (Gemini CLI too echoes the function call's id). */
function resultOf(run: AgentRun, id: string): string {
  const result = run.toolResults.find((entry) => entry.id === id);
  assert.ok(
    result,
    `no result for ${id}; results: ${JSON.stringify(run.toolResults)}; stderr: ${run.stderr.slice(-1500)}`,
  );
  return result.output;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

for (const agent of agents) {
  describe(`agent harness: ${agent}`, function () {
    this.timeout(timeoutMs + 30_000);
    const work = useTempDir(`provd-harness-${agent}-`);

    before(function () {
      const missing = agentMissing(agent);
      if (missing !== undefined) {
        process.stderr.write(`      skipped: ${missing}\n`);
        this.skip();
      }
    });

    it('runs a shell tool call that writes a file, and sends its result to the model', async () => {
      const run = await runAgent(agent, {
        cwd: work.path,
        prompt: 'write a greeting',
        script: [
          {
            calls: [
              {
                id: 'call_shell_1',
                kind: 'shell',
                command: 'echo hello-from-shell > greeting.txt && echo wrote-it',
              },
            ],
          },
          { text: 'All done.' },
        ],
        timeoutMs,
      });
      assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
      assert.equal(readFileSync(join(work.path, 'greeting.txt'), 'utf8'), 'hello-from-shell\n');
      assert.match(resultOf(run, 'call_shell_1'), /wrote-it/);
      assert.equal(run.turnsTaken, 2);
    });

    it('writes a file, then edits it, then reads it back', async () => {
      const path = join(work.path, 'notes.md');
      const run = await runAgent(agent, {
        cwd: work.path,
        prompt: 'take notes',
        script: [
          { calls: [{ id: 'call_write_1', kind: 'write', path, content: 'first line\nsecond line\n' }] },
          {
            calls: [
              { id: 'call_edit_1', kind: 'edit', path, oldText: 'second line', newText: 'edited line' },
            ],
          },
          { calls: [{ id: 'call_read_1', kind: 'read', path }] },
          { text: 'Notes taken.' },
        ],
        timeoutMs,
      });
      assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
      assert.equal(readFileSync(path, 'utf8'), 'first line\nedited line\n', JSON.stringify(run.toolResults));
      assert.match(resultOf(run, 'call_read_1'), /edited line/);
      assert.equal(run.turnsTaken, 4);
    });

    it('runs a hook command for each tool call, with the tool-call id the script chose', async () => {
      const log = join(work.path, 'hooks.jsonl');
      // each payload on a line of its own (payloads may come without a newline)
      const hook = `{ cat; echo; } >> ${log}`;
      const run = await runAgent(agent, {
        cwd: work.path,
        prompt: 'run a command',
        script: [
          { calls: [{ id: 'call_hooked_1', kind: 'shell', command: 'echo hooked' }] },
          { text: 'Ran it.' },
        ],
        hooks: { [preToolEvent(agent)]: hook, [postToolEvent(agent)]: hook },
        timeoutMs,
      });
      assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
      const payloads = readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(
        payloads.map((payload) => payload.hook_event_name),
        [preToolEvent(agent), postToolEvent(agent)],
      );
      for (const payload of payloads) {
        // Gemini's hooks carry no tool-call id
        if (agent !== 'gemini') assert.equal(payload.tool_use_id, 'call_hooked_1');
        assert.equal(typeof payload.session_id, 'string');
      }
    });

    it('lets a pre-tool hook deny a call: it never runs, and the model gets the reason', async () => {
      const run = await runAgent(agent, {
        cwd: work.path,
        prompt: 'touch a file',
        script: [
          { calls: [{ id: 'call_denied_1', kind: 'shell', command: 'touch denied.txt' }] },
          { text: 'It was denied.' },
        ],
        hooks: { [preToolEvent(agent)]: 'cat > /dev/null; echo "denied by the harness test" >&2; exit 2' },
        timeoutMs,
      });
      assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
      assert.equal(existsSync(join(work.path, 'denied.txt')), false);
      assert.match(resultOf(run, 'call_denied_1'), /denied by the harness test/);
    });

    it('kills an agent that outlives its timeout with its whole process tree, and says so', async () => {
      const pidFile = join(work.path, 'hook.pid');
      // the agent is stuck once its hook runs (the agent waits up to its hook timeout, 60 s, for it);
      // the run's timeout counts from then, so a slow start (Gemini CLI: 12 s at load 20) never
      // ends the run before the hook started, and a stuck run is not waited on longer than needed
      const hookRunning = eventually(
        `the hook to write its pid to ${pidFile}`,
        () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : ''),
        (text) => text.endsWith('\n'),
        { timeoutMs },
      );
      const started = runAgent(agent, {
        cwd: work.path,
        prompt: 'hang',
        script: [{ calls: [{ id: 'call_hang_1', kind: 'shell', command: 'true' }] }],
        // a hook that never ends, as a stuck hook would
        hooks: { [preToolEvent(agent)]: `echo $$ > ${pidFile}; exec sleep 600` },
        timeoutMs: 2_000,
        timeoutFrom: hookRunning,
      });
      await assert.rejects(
        started,
        (error: unknown) =>
          error instanceof AgentTimeoutError && /killed with its process tree/.test(error.message),
      );
      const hookPid = Number(await hookRunning);
      assert.ok(hookPid > 0);
      await eventually(
        `the hook's sleep (${hookPid}) to end with the agent`,
        () => isAlive(hookPid),
        (alive) => !alive,
        softDeadline,
      );
      assert.equal(isAlive(hookPid), false, `the hook's sleep (${hookPid}) outlived the kill`);
    });
  });
}
