/**
 * Writes each agent's own configuration into a temporary home (never the user's): the model server
 * it talks to and the hook commands a test gives, in that agent's settings format, and the command
 * line and environment that run it headless.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentName } from './script.js';

/** Hook commands by the agent's own event names (Claude and Codex: PreToolUse...; Gemini: BeforeTool...). */
export type HookCommands = Readonly<Record<string, string>>;

/** The event that runs before a tool, in `agent`'s words. */
export function preToolEvent(agent: AgentName): string {
  return agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
}

/** The event that runs after a tool, in `agent`'s words. */
export function postToolEvent(agent: AgentName): string {
  return agent === 'gemini' ? 'AfterTool' : 'PostToolUse';
}

/** The hooks object all three agents share: per event, one matcher for every tool, one command. */
function hooksObject(hooks: HookCommands, timeout: number): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(hooks).map(([event, command]) => [
      event,
      [{ matcher: '*', hooks: [{ type: 'command', command, timeout }] }],
    ]),
  );
}

/** A hook's timeout: 60 s, in seconds for Claude Code and Codex, in milliseconds for Gemini CLI (measured: 60 there killed it at once). */
const hookTimeout: Record<AgentName, number> = { claude: 60, codex: 60, gemini: 60_000 };

export interface AgentLaunch {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** Writes `agent`'s configuration under `home` and says how to start it. */
export function configureAgent(
  agent: AgentName,
  home: string,
  baseUrl: string,
  prompt: string,
  hooks: HookCommands,
): AgentLaunch {
  const base = {
    HOME: home,
    HTTPS_PROXY: deadProxy,
    HTTP_PROXY: deadProxy,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  if (agent === 'claude') {
    const settings = join(home, 'provd-test-settings.json');
    writeFileSync(settings, JSON.stringify({ hooks: hooksObject(hooks, hookTimeout[agent]) }));
    return {
      args: [
        '-p',
        prompt,
        '--output-format',
        'stream-json',
        '--verbose',
        '--dangerously-skip-permissions',
        '--settings',
        settings,
        '--setting-sources',
        '',
      ],
      env: {
        ...base,
        IS_SANDBOX: '1',
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_API_KEY: 'test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    };
  }
  if (agent === 'codex') {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "fake"',
        '[model_providers.fake]',
        'name = "scripted"',
        `base_url = "${baseUrl}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '[analytics]',
        'enabled = false',
        '[features]',
        'plugins = false',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(codexHome, 'hooks.json'),
      JSON.stringify({ hooks: hooksObject(hooks, hookTimeout[agent]) }),
    );
    return {
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '--dangerously-bypass-hook-trust',
        prompt,
      ],
      env: { ...base, CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'test' },
    };
  }
  const geminiDir = join(home, '.gemini');
  mkdirSync(geminiDir, { recursive: true });
  writeFileSync(
    join(geminiDir, 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      hooks: hooksObject(hooks, hookTimeout[agent]),
    }),
  );
  return {
    args: ['-m', 'gemini-2.5-flash', '-p', prompt, '--yolo', '--skip-trust', '-o', 'stream-json'],
    env: { ...base, GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: baseUrl },
  };
}

/** A proxy nothing listens on: any request an agent makes beyond loopback fails at once. */
const deadProxy = 'http://127.0.0.1:9';
