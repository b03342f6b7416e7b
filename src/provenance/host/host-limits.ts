/**
 * What `provd daemon --retain-host-events-age` and `--retain-host-events-bytes` ask of the host
 * rounds (host-keeper.ts). Both are off by default: retention removes evidence, so an operator
 * chooses it (docs/retention.md); without either, the rounds only sign the host digests. And how
 * often verify-host verifies everything again (`--verify-host-full-every`, a day by default).
 */

/** The host rounds' settings. */
export interface HostLimits {
  /** Host batches whose newest event was captured longer ago than this are removed; null: never by age. */
  ageMs: number | null;
  /** The host events' estimated bytes are kept under this, oldest batches removed first; null: no bound. */
  maxBytes: number | null;
  /** How often a round runs (sign the remaining host digests, apply retention). */
  roundMs: number;
  /** How often verify-host verifies every host event again in the background; null: never. */
  verifyFullEveryMs: number | null;
  /** Fault injection (PROVD_FAULT_KILL_BEFORE_ANCHOR): SIGKILL between a round's COMMIT and its anchor line. */
  killBeforeAnchor?: boolean;
}

/** A round a minute: host events are signed at most this long after they become host events. */
export const defaultHostRoundMs = 60_000;

/** A full verification of the host events a day (host-verifier.ts); a call verifies only what changed. */
export const defaultVerifyFullEveryMs = 86_400_000;

/** Off: nothing is removed, the rounds only sign. */
export const defaultHostLimits: HostLimits = {
  ageMs: null,
  maxBytes: null,
  roundMs: defaultHostRoundMs,
  verifyFullEveryMs: defaultVerifyFullEveryMs,
};
