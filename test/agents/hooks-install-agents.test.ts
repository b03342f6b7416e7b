/**
 * The hooks `provd hooks install` writes, run by the real agent CLIs (test/support/agents/) with the
 * real hook client against a real daemon (no sensor: agents-e2e.test.ts is the whole chain with it):
 * each agent, headless against its scripted model server, with only the settings install wrote in
 * its home and `--socket` the daemon's socket, fires its events; every one of them is stored in the
 * run PROVD_RUN names, the agent's tool-call id kept, and the daemon's `{}` lets the call run. The
 * agent has no token, so its events can only have come through the installed hook and the socket.
 * Skips, saying why, when the hook client is not built or .ci/install-agents has not installed the
 * CLIs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hookClientPath } from '../../src/agents/hook-command.js';
import { agentMissing } from '../support/agents/installed-agents.js';
import { installHooks } from '../support/agents/install-hooks.js';
import { runAgent } from '../support/agents/run-agent.js';
import type { AgentName } from '../support/agents/script.js';
import { useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { useTempDir } from '../support/temp-dir.js';

const timeoutMs = 120_000;
const token = 'hooks-install-agents-token';

/** The hook events each agent fires in a headless run with one shell call, besides the call's own two. */
const sessionEvents: Record<AgentName, string[]> = {
  claude: ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'],
  codex: ['SessionStart', 'UserPromptSubmit', 'Stop', 'SessionEnd'],
  gemini: ['SessionStart', 'BeforeAgent', 'AfterAgent', 'SessionEnd'],
};

describe('agents run the hooks provd hooks install wrote', function () {
  this.timeout(timeoutMs + 60_000);
  const work = useTempDir('provd-hooks-agents-');
  before(function () {
    if (existsSync(hookClientPath())) return;
    process.stderr.write(
      `      skipped: the hook client is not built (${hookClientPath()}): npm run build:hook-client\n`,
    );
    this.skip();
  });
  const shared = useSharedDaemon({ authToken: token });

  for (const agent of ['claude', 'codex', 'gemini'] as AgentName[]) {
    it(`${agent} runs provd's installed hook on each of its events, and the daemon on the install's --socket stores them`, async function () {
      const missing = agentMissing(agent);
      if (missing !== undefined) {
        process.stderr.write(`      skipped: ${missing}\n`);
        this.skip();
      }
      const socket = join(shared.daemon.dataDir, 'hooks.sock');
      const run = `installed-${agent}`;
      const installed: string[] = [];
      const agentRun = await runAgent(agent, {
        cwd: work.path,
        prompt: 'run a command',
        script: [
          { calls: [{ id: 'call_installed_1', kind: 'shell', command: 'echo ran-under-installed-hooks' }] },
          { text: 'Ran it.' },
        ],
        timeoutMs,
        // the hook client files the session's events under PROVD_RUN
        env: { PROVD_RUN: run },
        prepare: installHooks(agent, socket, (stdout) => installed.push(stdout)),
      });
      assert.equal(agentRun.exitCode, 0, agentRun.stderr.slice(-2000));
      assert.match(installed[0]!, /^wrote /);
      assert.ok(installed[0]!.includes(`${hookClientPath()} ${agent} --socket ${socket}`), installed[0]);
      const { status, body } = await request(shared.daemon.url, `/v1/timeline?run=${run}&view=session`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(status, 200, JSON.stringify(body));
      const items = body['items'] as Record<string, unknown>[];
      const stored = items
        .filter((item) => item['item'] === 'hook_event')
        .map((item) => item['native_event']);
      assert.deepEqual([...new Set(stored)].sort(), [...sessionEvents[agent]].sort(), JSON.stringify(stored));
      const calls = items.filter((item) => item['item'] === 'tool_call');
      assert.equal(calls.length, 1, JSON.stringify(calls));
      const call = calls[0]!;
      // its PreToolUse (answered allow) and its PostToolUse (the result) both reached the daemon
      assert.equal((call['decision'] as Record<string, unknown> | null)?.['answered'], 'allow');
      assert.equal(call['status'], 'completed');
      assert.match(JSON.stringify(call['result']), /ran-under-installed-hooks/);
      if (agent === 'gemini') assert.match(String(call['tool_call_id']), /^g_[0-9a-f]{24}/);
      else assert.equal(call['tool_call_id'], 'call_installed_1');
      // the daemon's {} let the call run
      const result = agentRun.toolResults.find((entry) => entry.output.includes('ran-under-installed-hooks'));
      assert.ok(result, JSON.stringify(agentRun.toolResults));
    });
  }
});
