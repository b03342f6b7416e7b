/**
 * The gate's decision on an agent's tool call before it runs (PreToolUse): what its input names,
 * judged by the policy, the most severe decision winning. The one call a hook endpoint needs.
 */
import { decideSubjects, type SubjectsDecision } from './most-severe.js';
import type { PolicyEngine } from './policy-engine.js';
import { toolCallSubjects } from './tool-subjects.js';

/**
 * Judges the tool call `tool` (the hook's `tool_name`) with `input` (its `tool_input`), relative
 * paths against `cwd` (the hook's) and `~` against `home` (the agent user's; null keeps `~`).
 */
export function judgeToolCall(
  engine: PolicyEngine,
  tool: string,
  input: unknown,
  cwd: string | null = null,
  home: string | null = null,
): SubjectsDecision {
  return decideSubjects(engine, toolCallSubjects(tool, input, cwd, home));
}
