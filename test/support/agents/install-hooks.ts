/**
 * A runAgent `prepare` that runs `provd hooks install --agent A --socket SOCKET` into the agent's
 * temporary home, as a user would into theirs, and starts the agent reading that home's settings.
 */
import assert from 'node:assert/strict';
import { runCli } from '../cli.js';
import type { AgentLaunch } from './agent-config.js';
import type { AgentName } from './script.js';

/** `prepare` for runAgent; `installed` gets install's stdout. */
export function installHooks(
  agent: AgentName,
  socket: string,
  installed: (stdout: string) => void,
): (home: string, launch: AgentLaunch) => Promise<AgentLaunch> {
  return async (home, launch) => {
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
    installed(install.stdout);
    // Claude Code: read the user's settings (~/.claude/settings.json), where install wrote
    const args = launch.args.map((arg, i) => (launch.args[i - 1] === '--setting-sources' ? 'user' : arg));
    return { ...launch, args };
  };
}
