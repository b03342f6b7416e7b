/**
 * PreToolUse events answered and then not stored: the agent had its answer and ran the tool, and
 * the store refused the event's write behind it (hooks.route.ts). Nothing can be told to the agent
 * any more, so the loss goes where coverage and producer health report it: one coverage gap of
 * kind `hook_store_failed` per run (the calls' times, the tool call ids), and the counter
 * `failed_after_answer` of source `hook_store`, beside health's count. The store that failed the
 * event may refuse the gap too: what is not yet written is kept and written again after the next
 * hook write that succeeds, and at the daemon's stop.
 */
import { log } from '../shared/log.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { HookGap } from '../telemetry/hook-loss.sql.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';

/** The tool call ids a gap names; past this many it counts them only. */
const idsPerGap = 20;

/** The run's calls not yet written as its gap. */
interface Unwritten {
  start: bigint;
  end: bigint;
  events: number;
  ids: string[];
  error: string;
}

export class UnstoredHooks {
  /** Events whose write failed after their answer, since the start (health's hooks.store_failed). */
  count = 0;
  private readonly unwritten = new Map<string, Unwritten>();
  private writing: Promise<void> | null = null;

  constructor(private readonly store: QueryClient<Pick<TelemetryKinds, 'hookLoss'>>) {}

  /** A PreToolUse of `runId`, received at `receivedNs`, whose write failed with `error`. */
  add(runId: string, receivedNs: string, toolCallId: string | null, error: unknown): void {
    this.count++;
    const at = BigInt(receivedNs);
    const run = this.unwritten.get(runId) ?? { start: at, end: at, events: 0, ids: [], error: '' };
    if (at < run.start) run.start = at;
    if (at > run.end) run.end = at;
    run.events++;
    if (toolCallId !== null && run.ids.length < idsPerGap) run.ids.push(toolCallId);
    run.error = String(error);
    this.unwritten.set(runId, run);
    void this.write();
  }

  /** True while some calls are not yet written as a gap. */
  get unwrittenRuns(): number {
    return this.unwritten.size;
  }

  /** Writes what is unwritten (one write at a time); a failure keeps it for the next call. */
  async write(): Promise<void> {
    while (this.writing !== null) await this.writing;
    if (this.unwritten.size === 0) return;
    const taken = new Map(this.unwritten);
    this.unwritten.clear();
    this.writing = this.store
      .queryJson(
        'hookLoss',
        {
          gaps: [...taken].map(([runId, run]) => gapOf(runId, run)),
          counters: [
            {
              source: 'hook_store',
              counter: 'failed_after_answer',
              value: [...taken.values()].reduce((sum, run) => sum + run.events, 0),
            },
          ],
        },
        { deadlineMs: 10_000 },
      )
      .then(
        () => undefined,
        (error: unknown) => {
          for (const [runId, run] of taken) this.keep(runId, run);
          log('warn', 'hook events not stored after their answer are not yet a coverage gap', {
            runs: taken.size,
            error: String(error),
          });
        },
      )
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
  }

  /** Puts back a run's calls whose gap was not written, beside any failed since. */
  private keep(runId: string, run: Unwritten): void {
    const since = this.unwritten.get(runId);
    if (since === undefined) {
      this.unwritten.set(runId, run);
      return;
    }
    since.start = run.start < since.start ? run.start : since.start;
    since.end = run.end > since.end ? run.end : since.end;
    since.events += run.events;
    since.ids = [...run.ids, ...since.ids].slice(0, idsPerGap);
  }
}

function gapOf(runId: string, run: Unwritten): HookGap {
  return {
    kind: 'hook_store_failed',
    run_id: runId,
    start_ns: String(run.start),
    end_ns: String(run.end),
    events: run.events,
    detail: {
      reason: 'PreToolUse events answered, then not stored: the store refused their write after the answer',
      tool_call_ids: run.ids,
      last_error: run.error,
    },
  };
}
