/**
 * How a command provd runs (POST /v1/record) is stopped when the policy decides `kill` on one of
 * its runtime events. The record route watches the command's binding while it runs; the security
 * domain (src/security/responses/kill-switch.ts) does the watching and records what it did.
 */
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';

/** What provd did to a recorded command on a kill decision, as its tool call reports it. */
export interface PolicyKill {
  /** The event whose kill decision provd enforced. */
  event_id: string;
  rule_id: string;
  reason: string;
  /** `killed`: its processes were sent SIGKILL; `ended`: none was left; `failed`: the kill failed. */
  outcome: 'killed' | 'ended' | 'failed';
  /** Processes killed; null when they could not be counted (a process group, without a cgroup). */
  processes_killed: Count | null;
  message: string;
  enforced_at: DateTimeText;
}

/** Where a recorded command's processes are, and how to kill them all. */
export interface KillTarget {
  /** `cgroup`: its own cgroup v2 (id: the cgroup id); `process_group`: its group (id: the group id). */
  kind: 'cgroup' | 'process_group';
  id: string;
  /** Kills every process of the target; resolves with how many there were (null: not counted). */
  kill(): Promise<number | null>;
}

/** The recorded command a binding stands for. */
export interface KillScope {
  bindingId: string;
  runId: string;
  toolCallId: string;
}

/**
 * Watches `scope`'s binding for kill decisions while the command runs. The returned function ends
 * the watch and resolves with what was done, once any kill under way is done and recorded.
 */
export type KillWatch = (scope: KillScope, target: KillTarget) => () => Promise<PolicyKill | null>;
