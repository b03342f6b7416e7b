/**
 * The pinned agent CLIs .ci/install-agents puts under .cache/agents/ (keep the versions in step
 * with it), and where each one's command is.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AgentName } from './script.js';

export const agentPackages: Record<
  AgentName,
  { readonly name: string; readonly version: string; readonly bin: string }
> = {
  claude: { name: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { name: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { name: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

/** The command that starts `agent`'s CLI. */
export function agentCommand(agent: AgentName): string {
  const { name, version, bin } = agentPackages[agent];
  const prefix = `${name.replace('/', '+')}@${version}`;
  return fileURLToPath(
    new URL(`../../../../.cache/agents/${prefix}/node_modules/.bin/${bin}`, import.meta.url),
  );
}

/** Why `agent` cannot run here, or undefined when it can. */
export function agentMissing(agent: AgentName): string | undefined {
  const command = agentCommand(agent);
  if (existsSync(command)) return undefined;
  return `${agentPackages[agent].name}@${agentPackages[agent].version} is not installed (${command}); run: bash .ci/install-agents`;
}
