/** The answer to POST /v1/record (`provenance.record/v1`): the tool call as stored, with its evidence. */
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import type { FileEffect } from './file-effects.js';
import type { FileEffectsCompared } from './snapshot-coverage.js';
import type { PolicyKill } from './kill-watch.js';
import type { RecordedLlmUsage } from './record-request.js';

/** How a recorded tool call ended; `asserted` when nothing ran (execute:false). */
/** `denied`: an agent's tool call the gate denied through its hook; it never ran (docs/agents.md). */
export type ToolCallStatus = 'asserted' | 'completed' | 'failed' | 'timeout' | 'error' | 'denied';

/** One captured output stream, stored as an artifact. */
export interface RecordArtifact {
  /** `sha256:<hex>` of the stored bytes (the artifact's address). */
  hash: string;
  /** The artifact object in the run's graph. */
  object_hash: string;
  /** Bytes the stream carried. */
  size: Count;
  /** Bytes stored: at most 1 MiB, the first ones. */
  stored_bytes: Count;
  truncated: boolean;
  /** `sha256:<hex>` of every byte the stream carried. */
  stream_hash: string;
  /** The stored bytes as UTF-8 (malformed sequences replaced). */
  text: string;
}

/** The cgroup the command ran in, or why it ran without one. */
export interface RecordCgroupReport {
  /** `used`: the command's whole tree ran in its own cgroup v2, bound `control_plane`. */
  status: 'used' | 'unavailable' | 'not_run';
  path: string | null;
  /** The cgroup v2 id events carry, in decimal. */
  id: string | null;
  /** The cgroup was removed after the command and its leftovers ended. */
  removed: boolean | null;
  message: string | null;
}

/**
 * What the snapshots of cwd left out. `git`: what git ignores there (nested .gitignore files with
 * their negations, .git/info/exclude, core.excludesFile) and every `.git` entry; `.gitignore` files
 * themselves are always kept. `none`: nothing was left out, `reason` says why (no git work tree, no
 * git, git failed or hit its bound). `not_run`: no snapshot was taken.
 */
export interface RecordIgnoreReport {
  source: 'git' | 'none' | 'not_run';
  /** Ignored entries skipped (the larger count of the two snapshots; an ignored directory counts once). */
  skipped: Count;
  reason: string | null;
}

/** A file effect with its object in the graph. */
export interface RecordedFileEffect extends FileEffect {
  object_hash: string;
}

/** A tool call as stored: what it ran, how it ended, and its object in the run's graph. */
export interface RecordedToolCall {
  tool_call_id: string;
  status: ToolCallStatus;
  /** False when nothing ran (execute:false). */
  executed: boolean;
  command: string;
  args: string[];
  cwd: string;
  started_at: DateTimeText;
  ended_at: DateTimeText | null;
  duration_ms: number | null;
  pid: number | null;
  exit_code: number | null;
  /** The signal that ended the command (SIGKILL after a timeout). */
  signal: string | null;
  /** Why the command could not run, when status is `error`. */
  error: string | null;
  /** The binding that attributes the command's runtime events to this tool call. */
  binding_id: string | null;
  /** The tool_call object in the run's graph. */
  object_hash: string;
}

export interface RecordAnswer extends RecordedToolCall {
  schema_version: 'provenance.record/v1';
  run_id: string;
  /** `self_observed` for what the daemon saw itself; `context_asserted` for an asserted call. */
  evidence_level: 'self_observed' | 'context_asserted';
  /** LLM token usage the caller asserted for the tool call, by model (`[]`: none); never observed by provd. */
  llm_usage: RecordedLlmUsage[];
  cgroup: RecordCgroupReport;
  stdout: RecordArtifact | null;
  stderr: RecordArtifact | null;
  file_effects: RecordedFileEffect[];
  /** False when cwd was too large or partly unreadable: effects outside what was seen are unknown. */
  file_effects_complete: boolean;
  file_effects_incomplete_reason: string | null;
  /**
   * Only when the effects are incomplete: which part of cwd was compared (everything but
   * `not_compared`). No effect is claimed of a path a snapshot did not see.
   */
  file_effects_compared?: FileEffectsCompared;
  /** What the snapshots skipped as ignored by git: its effects there are not looked for. */
  file_effects_ignore: RecordIgnoreReport;
  /** Effects beyond the first 1,000, counted and not listed. */
  file_effects_omitted: Count;
  /** Processes of the tree still alive when the command exited, then killed; null without a cgroup. */
  leftover_processes_killed: Count | null;
  /** What provd did when the policy decided `kill` on one of the command's events; null when it did not. */
  policy_kill: PolicyKill | null;
  /** The user the command ran as (never root unless --record-user root said so); null when nothing ran. */
  run_as: { uid: number; name: string } | null;
}
