/**
 * The kill switch, on the main thread: it watches the bindings of the commands provd runs
 * (POST /v1/record) and, when the policy decides `kill` on an event one of them claimed, kills the
 * command's whole tree at once (before the event is even committed) and records what it did. It
 * sees only kill decisions, never events: the normalize workers pick those out.
 */
import type { KillScope, KillTarget, KillWatch, PolicyKill } from '../../provenance/record/kill-watch.js';
import type { KillVerdict } from '../../shared/event-verdict.js';
import { log } from '../../shared/log.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { toErrorData } from '../../shared/errors.js';
import type { SecurityKinds } from '../security-kinds.js';
import type { Enforcement } from './enforcement.sql.js';

interface Watched {
  scope: KillScope;
  target: KillTarget;
  /** The one kill of this command, once a decision asked for it. */
  kill: Promise<PolicyKill> | null;
}

/** Kills recorded commands on the policy's kill decisions. */
export class KillSwitch {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly store: QueryClient<SecurityKinds>) {}

  /** The watch the record route takes for each command it runs. */
  readonly watch: KillWatch = (scope, target) => {
    const entry: Watched = { scope, target, kill: null };
    this.watched.set(scope.bindingId, entry);
    return async () => {
      this.watched.delete(scope.bindingId);
      return entry.kill;
    };
  };

  /** Enforces kill decisions; those on bindings of commands provd does not run are left to the caller. */
  enforce(kills: readonly KillVerdict[]): void {
    for (const verdict of kills) {
      const entry = this.watched.get(verdict.bindingId);
      if (entry === undefined || entry.kill !== null) continue; // not ours, or being killed already
      entry.kill = this.kill(entry, verdict);
    }
  }

  private async kill(entry: Watched, verdict: KillVerdict): Promise<PolicyKill> {
    const { scope, target } = entry;
    let outcome: PolicyKill['outcome'];
    let killed: number | null = null;
    let message: string;
    try {
      killed = await target.kill();
      outcome = killed === 0 ? 'ended' : 'killed';
      message =
        outcome === 'ended'
          ? `no process was left in ${target.kind} ${target.id}: the command had ended`
          : `sent SIGKILL to every process of ${target.kind} ${target.id}`;
    } catch (error) {
      outcome = 'failed';
      message = `failed to kill ${target.kind} ${target.id}: ${(error as Error).message}`;
    }
    const enforcedNs = BigInt(Date.now()) * 1_000_000n;
    const row: Enforcement = {
      eventId: verdict.eventId,
      runId: scope.runId,
      toolCallId: scope.toolCallId,
      bindingId: scope.bindingId,
      ruleId: verdict.ruleId,
      action: 'kill',
      targetKind: target.kind,
      targetId: target.id,
      outcome,
      processesKilled: killed,
      message,
      enforcedNs,
    };
    log(outcome === 'failed' ? 'error' : 'info', 'policy kill', { ...row, enforcedNs: undefined });
    // the tool call reports the kill too, in the signed graph, even if this row is lost
    await this.store.query('enforce', row, { deadlineMs: 30_000 }).catch((error: unknown) =>
      log('error', 'storing a policy kill failed', {
        event_id: row.eventId,
        error: toErrorData(error, 'PROVD_ERR_STORE_QUERY'),
      }),
    );
    return {
      event_id: verdict.eventId,
      rule_id: verdict.ruleId,
      reason: verdict.reason,
      outcome,
      processes_killed: killed,
      message,
      enforced_at: formatRfc3339Nanos(enforcedNs),
    };
  }
}
