/**
 * The hooks `provd hooks install` writes, run by the real agent CLIs (test/support/agents/): each
 * agent, headless against its scripted model server, with only the settings install wrote in its
 * home, runs the installed command on every event provd hooks, with the agent's name and the
 * `--socket` given to install. The hook client may not be built yet: then a stand-in at
 * `hookClientPath()` records each call (its arguments and payload) and answers `{}`; it is removed
 * after. Skips, saying why, when .ci/install-agents has not installed the CLIs.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookClientPath } from '../../src/agents/hook-command.js';
import { agentMissing } from '../support/agents/installed-agents.js';
import { runAgent } from '../support/agents/run-agent.js';
import type { AgentName } from '../support/agents/script.js';
import { runCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

const timeoutMs = 120_000;
const marker = '# provd hooks-install test stand-in';

/** The events each agent fires in a headless run with one shell call (no failing tool, so no PostToolUseFailure). */
const firedEvents: Record<AgentName, string[]> = {
  claude: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
  gemini: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'],
};

/** A stand-in for the hook client: `provd-hook AGENT --socket PATH` appends a line to PATH. */
const standIn = `#!/bin/sh
${marker} (the real client is not built here; removed after the test)
payload=$(cat)
printf 'agent=%s option=%s socket=%s %s\\n' "$1" "$2" "$3" "$payload" >> "$3"
echo '{}'
`;

describe('agents run the hooks provd hooks install wrote', function () {
  this.timeout(timeoutMs + 60_000);
  const work = useTempDir('provd-hooks-agents-');
  let madeStandIn = false;

  before(function () {
    if (existsSync(hookClientPath()) && !readFileSync(hookClientPath(), 'utf8').includes(marker)) {
      // the real client is built: this test's stand-in must not replace it
      process.stderr.write(
        `      skipped: the real hook client is built (${hookClientPath()}); see hooks-install.test.ts\n`,
      );
      this.skip();
    }
    writeFileSync(hookClientPath(), standIn);
    chmodSync(hookClientPath(), 0o755);
    madeStandIn = true;
  });

  after(function () {
    if (madeStandIn && readFileSync(hookClientPath(), 'utf8').includes(marker)) rmSync(hookClientPath());
  });

  for (const agent of ['claude', 'codex', 'gemini'] as AgentName[]) {
    it(`${agent} runs provd's installed hook on each of its events, pointed at the install's --socket`, async function () {
      const missing = agentMissing(agent);
      if (missing !== undefined) {
        process.stderr.write(`      skipped: ${missing}\n`);
        this.skip();
      }
      const socket = join(work.path, 'hooks.sock');
      const installed: string[] = [];
      const run = await runAgent(agent, {
        cwd: work.path,
        prompt: 'run a command',
        script: [
          { calls: [{ id: 'call_installed_1', kind: 'shell', command: 'echo ran-under-installed-hooks' }] },
          { text: 'Ran it.' },
        ],
        timeoutMs,
        prepare: async (home, launch) => {
          const env = {
            HOME: home,
            CLAUDE_CONFIG_DIR: '',
            CODEX_HOME: launch.env['CODEX_HOME'] ?? '',
            GEMINI_CLI_HOME: '',
          };
          const install = await runCli(['hooks', 'install', '--agent', agent, '--socket', socket], {
            env,
            cwd: home,
          });
          assert.equal(install.code, 0, install.stderr);
          installed.push(install.stdout);
          // Claude Code: read the user's settings (~/.claude/settings.json), where install wrote
          const args = launch.args.map((arg, i) =>
            launch.args[i - 1] === '--setting-sources' ? 'user' : arg,
          );
          return { ...launch, args };
        },
      });
      assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
      assert.match(installed[0]!, /^wrote /);
      const calls = readFileSync(socket, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const parsed = /^agent=(\S*) option=(\S*) socket=(\S*) (.*)$/.exec(line);
          assert.ok(parsed, line);
          return {
            agent: parsed[1],
            option: parsed[2],
            socket: parsed[3],
            payload: JSON.parse(parsed[4]!) as Record<string, unknown>,
          };
        });
      const events = [...new Set(calls.map((call) => String(call.payload['hook_event_name'])))];
      assert.deepEqual(events.sort(), [...firedEvents[agent]].sort(), JSON.stringify(events));
      for (const call of calls)
        assert.deepEqual([call.agent, call.option, call.socket], [agent, '--socket', socket]);
      const pre = calls.find((call) => call.payload['hook_event_name'] === firedEvents[agent][2]);
      if (agent !== 'gemini') assert.equal(pre?.payload['tool_use_id'], 'call_installed_1');
      // the stand-in's {} let the call run
      const result = run.toolResults.find((entry) => entry.id === 'call_installed_1');
      assert.match(result?.output ?? JSON.stringify(run.toolResults), /ran-under-installed-hooks/);
    });
  }
});
