/** The agent harnesses provd reads hooks from: adding an agent is its folder and one line here. */
import { claudeAgent } from './claude/claude-agent.js';
import { codexAgent } from './codex/codex-agent.js';
import { geminiAgent } from './gemini/gemini-agent.js';
import type { AgentHarness } from './hook-event.js';

export const agentHarnesses: readonly AgentHarness[] = [claudeAgent, codexAgent, geminiAgent];
