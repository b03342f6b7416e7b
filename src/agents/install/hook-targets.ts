/**
 * Where each agent keeps its hook settings, which of its events provd hooks, and how it takes a
 * hook's timeout: the facts `provd hooks install` writes by (checked against the pinned CLIs in
 * .cache/agents, see /work/shared/data/agents/README.md and test/agents/hooks-install-agents.test.ts).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export type HookAgent = 'claude' | 'codex' | 'gemini';
export const hookAgents: readonly HookAgent[] = ['claude', 'codex', 'gemini'];

/** User scope (the agent's home) or the project in the current directory. */
export type HookScope = 'user' | 'project';

/**
 * A hook's timeout, 10 s: a hung daemon holds a tool call at most this long, and the hook client's
 * own wait for the daemon (after which it answers as `hooks.on_daemon_down` says) must end first.
 */
export const hookTimeoutSeconds = 10;

export interface HookTarget {
  agent: HookAgent;
  scope: HookScope;
  /** The JSON file whose `hooks` object provd's entries go into. */
  settingsFile: string;
  /** Whether the agent reads that file with comments allowed. */
  comments: boolean;
  /** The events provd hooks, in the agent's words. */
  events: readonly string[];
  /** The timeout as the agent reads it: seconds, or milliseconds for Gemini CLI. */
  timeout: number;
  /** Codex: the config.toml whose `[features] hooks` turns hooks on. */
  featuresFile: string | null;
  /** What the user must know for the agent to run the hooks, said after install. */
  notes: readonly string[];
}

const claudeShapedEvents = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionEnd',
];

/** The agent's home as the agent finds it: its own variable first, then `$HOME`. */
function agentHome(agent: HookAgent, env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] || homedir();
  if (agent === 'claude') return env['CLAUDE_CONFIG_DIR'] || join(home, '.claude');
  if (agent === 'codex') return env['CODEX_HOME'] || join(home, '.codex');
  return join(env['GEMINI_CLI_HOME'] || home, '.gemini');
}

/** Where `agent`'s hooks go for `scope`, with `env` and `cwd` as the agent would see them. */
export function hookTarget(
  agent: HookAgent,
  scope: HookScope,
  env: NodeJS.ProcessEnv,
  cwd: string,
): HookTarget {
  const dir = scope === 'user' ? agentHome(agent, env) : join(cwd, `.${agent}`);
  if (agent === 'claude')
    return {
      agent,
      scope,
      settingsFile: join(dir, 'settings.json'),
      comments: false,
      events: [...claudeShapedEvents.slice(0, 4), 'PostToolUseFailure', ...claudeShapedEvents.slice(4)],
      timeout: hookTimeoutSeconds,
      featuresFile: null,
      notes: [],
    };
  if (agent === 'codex')
    return {
      agent,
      scope,
      settingsFile: join(dir, 'hooks.json'),
      comments: false,
      events: claudeShapedEvents,
      timeout: hookTimeoutSeconds,
      featuresFile: join(dir, 'config.toml'),
      notes: [
        'Codex runs a new or changed hook only once you trust it: the interactive codex says the hooks ' +
          'need review; codex exec skips them silently unless run with --dangerously-bypass-hook-trust',
        ...(scope === 'project' ? ['Codex reads .codex/ of a project only when the project is trusted'] : []),
      ],
    };
  return {
    agent,
    scope,
    settingsFile: join(dir, 'settings.json'),
    comments: true,
    events: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'],
    timeout: hookTimeoutSeconds * 1000,
    featuresFile: null,
    notes: scope === 'project' ? ['Gemini CLI runs project hooks only in a trusted folder'] : [],
  };
}
