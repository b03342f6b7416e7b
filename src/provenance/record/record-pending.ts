/**
 * The tool call a record stores, and the answer it gives, before the store addresses them: an
 * asserted call (execute:false), a command that could not start, and a command that ran.
 */
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { CapturedOutput } from './bounded-output.js';
import { notRunIgnore } from './cwd-snapshot.js';
import type { FileEffects } from './file-effects.js';
import type { PolicyKill } from './kill-watch.js';
import type {
  RecordAnswer,
  RecordCgroupReport,
  RecordIgnoreReport,
  ToolCallStatus,
} from './record-answer.js';
import type { RecordPlan } from './record-request.js';
import type { RecordWrite } from './record-store.sql.js';
import type { CommandOutcome } from './run-command.js';

/** A tool call and its answer before the store addresses them. */
export interface Pending {
  write: RecordWrite;
  answer: Omit<RecordAnswer, 'object_hash' | 'stdout' | 'stderr' | 'file_effects'>;
  outputs: CapturedOutput[];
}

export function asserted(plan: RecordPlan): Pending {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const answer: Pending['answer'] = {
    schema_version: 'provenance.record/v1',
    run_id: plan.runId,
    tool_call_id: plan.toolCallId,
    status: 'asserted',
    executed: false,
    evidence_level: 'context_asserted',
    command: plan.command,
    args: plan.args,
    cwd: plan.cwd,
    started_at: formatRfc3339Nanos(nowNs),
    ended_at: null,
    duration_ms: null,
    pid: null,
    exit_code: null,
    signal: null,
    error: null,
    cgroup: { status: 'not_run', path: null, id: null, removed: null, message: null },
    binding_id: null,
    llm_usage: plan.llmUsage,
    file_effects_complete: true,
    file_effects_incomplete_reason: null,
    file_effects_omitted: 0,
    file_effects_ignore: notRunIgnore,
    leftover_processes_killed: null,
    policy_kill: null,
    run_as: null,
  };
  return { write: writeOf(answer, nowNs, null, [], []), answer, outputs: [] };
}

/** A command that could not start: nothing ran, so no cgroup, binding, output or effects. */
export function notStarted(plan: RecordPlan, error: string): Pending {
  const pending = asserted(plan);
  const answer: Pending['answer'] = {
    ...pending.answer,
    status: 'error',
    evidence_level: 'self_observed',
    error,
  };
  return { ...pending, answer, write: { ...pending.write, status: 'error', toolCall: toolCallOf(answer) } };
}

export function executed(
  plan: RecordPlan,
  outcome: CommandOutcome,
  effects: FileEffects & { ignore: RecordIgnoreReport },
  cgroup: RecordCgroupReport,
  bindingId: string | null,
  policyKill: PolicyKill | null,
  ranAs: { uid: number; name: string },
): Pending {
  const status: ToolCallStatus =
    outcome.startError !== null
      ? 'error'
      : outcome.timedOut
        ? 'timeout'
        : outcome.exitCode === 0
          ? 'completed'
          : 'failed';
  const answer: Pending['answer'] = {
    ...asserted(plan).answer,
    status,
    executed: true,
    evidence_level: 'self_observed',
    started_at: formatRfc3339Nanos(outcome.startedNs),
    ended_at: formatRfc3339Nanos(outcome.endedNs),
    duration_ms: Number(outcome.endedNs - outcome.startedNs) / 1e6,
    pid: outcome.pid,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    error: outcome.startError,
    cgroup,
    binding_id: bindingId,
    file_effects_complete: effects.complete,
    file_effects_incomplete_reason: effects.incomplete_reason,
    file_effects_omitted: effects.omitted,
    file_effects_ignore: effects.ignore,
    leftover_processes_killed: outcome.leftoverKilled,
    policy_kill: policyKill,
    run_as: outcome.startError !== null && outcome.pid === null ? null : { uid: ranAs.uid, name: ranAs.name },
    // absent when complete: the tool call of a complete record is stored as it always was
    ...(effects.compared !== null && { file_effects_compared: effects.compared }),
  };
  const outputs = [outcome.stdout, outcome.stderr];
  const write = writeOf(answer, outcome.startedNs, outcome.endedNs, outputs, effects.effects);
  return { write, answer, outputs };
}

/** The store write of a tool call: its object's payload is the answer without what the store adds. */
function writeOf(
  answer: Pending['answer'],
  startedNs: bigint,
  endedNs: bigint | null,
  outputs: CapturedOutput[],
  effects: FileEffects['effects'],
): RecordWrite {
  return {
    runId: answer.run_id,
    toolCallId: answer.tool_call_id,
    bindingId: answer.binding_id,
    status: answer.status,
    startedNs,
    endedNs,
    toolCall: toolCallOf(answer),
    outputs: outputs.map((output, i) => ({
      stream: i === 0 ? 'stdout' : 'stderr',
      content: output.content,
      size: output.size,
      truncated: output.truncated,
      streamHash: output.streamHash,
    })),
    effects,
  };
}

/** The tool_call object's payload: the answer without what the store adds. */
function toolCallOf(answer: Pending['answer']): Record<string, unknown> {
  const { schema_version: _version, ...toolCall } = answer;
  return toolCall;
}
