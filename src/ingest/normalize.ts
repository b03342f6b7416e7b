/**
 * One normalize task (workers/normalize.task.ts): parse a slice of NDJSON (or decode sensor records),
 * hash the events (all of the slice's at once: batch-hash.ts), correlate each with the binding
 * replica, judge it by the policy, and write the rows file the store actor will load. Returns only
 * small data: counts, errors, per-run digests and the policy's decisions. The windows are counted
 * by the commit, in SQL over the rows it inserted.
 */
import { merkleRoots, nativeContents } from '../provenance/batch-hash.js';
import { decisionLeaf } from '../provenance/decision-leaf.js';
import { merkleRoot } from '../provenance/merkle.js';
import type { BindingReplica } from '../telemetry/binding-replica.js';
import type { Correlation } from '../telemetry/binding-index.js';
import type { IngestFormat, LineError, ParsedEvent } from '../model/event.js';
import { canonicalContent } from '../telemetry/event-hash.js';
import type { BatchDigest } from '../telemetry/batch-commit.js';
import type { CounterDelta } from '../telemetry/counter-delta.js';
import { notLossCounts, reportedGap, type ReportedGap } from '../telemetry/reported-gap.js';
import { estimateRowBytes } from '../telemetry/spool-row-bytes.js';
import { decodeSensorBatch } from '../sensor/decode-records.js';
import type { EventVerdict, KillVerdict } from '../shared/event-verdict.js';
import { eventSubject } from '../security/policy/event-subject.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import type { PolicyDecision } from '../security/policy/policy.js';
import { parseNdjson } from './parse-ndjson.js';
import { SliceRows } from './slice-rows.js';
import { ProducerTally } from './producer-tally.js';
import { missingTime, stampReceived } from './received-time.js';
import { hasDestination } from './no-destination.js';

/**
 * Fault injection for tests only: an event whose comm is this value gets a row the store refuses
 * (a pid no column holds), as a value the parsers let through by mistake would.
 */
const unstorableComm = process.env['PROVD_FAULT_UNSTORABLE_COMM'];

/** What a task's bytes hold: NDJSON of an ingest format, or a batch of raw sensor records. */
export type TaskFormat = IngestFormat | 'sensor';

/** The work of one task; `bytes` arrives transferred, never copied. */
export interface NormalizeTask {
  bytes: Uint8Array;
  format: TaskFormat;
  /** Unique per slice; event ids are `<batchId>.<index>`. */
  batchId: string;
  /** Where to write the rows file. */
  file: string;
  ingestedNs: bigint;
}

/** What a task hands back to the ingest router. */
export interface NormalizeResult {
  batchId: string;
  /** Null when no line was accepted (nothing to load). */
  file: string | null;
  /** Lines seen in the slice, so the router can number errors across slices. */
  lines: number;
  accepted: number;
  rejected: number;
  /** Accepted events that found no binding and wait in the spool. */
  pending: number;
  /** Bytes of the pending rows, for the spool's byte bound. */
  pendingBytes: number;
  /** Errors with line numbers relative to the slice (1-based). */
  errors: LineError[];
  digests: BatchDigest[];
  /** The replica's version when correlating; the store re-checks pending rows if it has more bindings. */
  bindingVersion: number;
  /** Producer counters: accepted and spooled per source, invalid per rejection code. */
  counters: CounterDelta[];
  /** Loss the producers reported about themselves (capture_loss events). */
  gaps: ReportedGap[];
  /** The policy's decisions on the events it did not simply allow. */
  verdicts: EventVerdict[];
  /** Its kill decisions on events a binding claimed: the main thread enforces those of commands provd runs. */
  kills: KillVerdict[];
  ingestedNs: bigint;
}

/** Runs one task against a binding replica, judging each event with `policy`. */
export function normalizeBatch(
  task: NormalizeTask,
  replica: BindingReplica,
  policy: PolicyEngine,
): NormalizeResult {
  const { events, lines, nativeLines, errors, rejected, rejectedByCode } =
    task.format === 'sensor' ? decodeSensorBatch(task.bytes) : parseNdjson(task.bytes, task.format, 1);
  const tally = new ProducerTally();
  const count = events.length;
  const rows = new SliceRows(count);
  const runs = new RunGroups();
  const groups = new Uint32Array(count);
  const decided: { index: number; decision: PolicyDecision; match: Correlation | undefined }[] = [];
  const gaps: ReportedGap[] = [];
  const pendingIndexes: number[] = [];
  for (let i = 0; i < count; i++) {
    const event = events[i]!;
    let line = contentFromLine(event) ? nativeLines[i]! : 0;
    if (event.time === missingTime) {
      stampReceived(event, task.ingestedNs);
      tally.count(event.source, 'no_capture_time');
      line = 0;
    }
    // the addon builds the content of a native line from its bytes (native/hash/native-content.cc)
    const content = line === 0 ? canonicalContent(event) : null;
    const match = replica.index.correlate(event);
    groups[i] = runs.groupOf(match === undefined ? null : match.binding.run_id);
    const decision = decide(policy, event);
    if (decision !== null) decided.push({ index: i, decision, match });
    const unstorablePid = unstorableComm !== undefined && event.comm === unstorableComm;
    rows.add(i, { event, content, line, match, judged: decision !== null, unstorablePid });
    tally.count(event.source, 'accepted');
    if (event.type === 'generic') tally.count(event.source, `generic:${String(event.attrs.kind)}`);
    if (event.type === 'network_connect' && !hasDestination(event.attrs))
      tally.count(event.source, 'connect_no_destination');
    if (event.type === 'capture_loss') {
      const gap = reportedGap(event, `${task.batchId}.${i}`);
      if (gap !== undefined) gaps.push(gap);
      tally.count(event.source, `capture_loss:${String(event.attrs.loss)}`);
      for (const [counter, value] of notLossCounts(event.attrs)) tally.count(event.source, counter, value);
    }
    if (match === undefined) {
      pendingIndexes.push(i);
      tally.count(event.source, 'spooled');
    }
  }
  const digests = count === 0 ? Buffer.alloc(0) : rows.write(task.file, task.bytes);
  let pendingBytes = 0;
  for (const i of pendingIndexes) pendingBytes += estimateRowBytes(events[i]!, rows.attrsLength(i));

  // the policy's decisions, with the hashes of the events they judged
  const verdicts: EventVerdict[] = [];
  const kills: KillVerdict[] = [];
  const leavesByRun = new Map<string | null, string[]>();
  for (const { index, decision, match } of decided) {
    const runId = match === undefined ? null : match.binding.run_id;
    const eventHash = 'sha256:' + digests.toString('hex', index * 32, index * 32 + 32);
    const verdict = verdictOf(decision, `${task.batchId}.${index}`, eventHash, runId, policy);
    verdicts.push(verdict);
    const leaves = leavesByRun.get(runId);
    if (leaves === undefined) leavesByRun.set(runId, [verdictLeaf(verdict)]);
    else leaves.push(verdictLeaf(verdict));
    if (verdict.decision === 'kill' && match !== undefined) kills.push(killOf(verdict, match));
  }
  const roots = merkleRoots(digests, groups, runs.size);
  return {
    batchId: task.batchId,
    file: count === 0 ? null : task.file,
    lines,
    accepted: count,
    rejected,
    pending: pendingIndexes.length,
    pendingBytes,
    errors,
    digests: runs.list().map(({ runId, events: runEvents }, group) => {
      const leaves = leavesByRun.get(runId) ?? [];
      return {
        runId,
        events: runEvents,
        merkleRoot: 'sha256:' + roots.toString('hex', group * 32, group * 32 + 32),
        judged: leaves.length,
        judgmentRoot: merkleRoot(leaves),
      };
    }),
    bindingVersion: replica.version,
    counters: tally.rejections(rejectedByCode).list(),
    gaps,
    verdicts,
    kills,
    ingestedNs: task.ingestedNs,
  };
}

/**
 * True when the addon may build the event's content from its native line: it is loaded, and
 * native.ts took the line as it is. A setuid or setgid line of AgentProvenance's sensor has its
 * uid moved into attrs (readAgentprovTarget), so those two types are written here.
 */
function contentFromLine(event: ParsedEvent): boolean {
  return nativeContents !== null && event.type !== 'setuid' && event.type !== 'setgid';
}

/** The runs of a slice's events, numbered in order of first appearance (null: spooled), with their counts. */
class RunGroups {
  private readonly numbers = new Map<string | null, number>();
  private readonly runs: { runId: string | null; events: number }[] = [];

  get size(): number {
    return this.runs.length;
  }

  groupOf(runId: string | null): number {
    let group = this.numbers.get(runId);
    if (group === undefined) {
      group = this.runs.length;
      this.numbers.set(runId, group);
      this.runs.push({ runId, events: 0 });
    }
    this.runs[group]!.events++;
    return group;
  }

  list(): readonly { runId: string | null; events: number }[] {
    return this.runs;
  }
}

/** The policy's decision on a stored event, or null when the policy simply allows it. */
function decide(policy: PolicyEngine, event: ParsedEvent): PolicyDecision | null {
  if (!policy.mayMatch(event.type)) return null;
  const decided = policy.evaluate(eventSubject(event.type, event.attrs));
  return decided.decision === 'allow' && decided.advisory === null ? null : decided;
}

/** A decision as stored with the event it judged. */
function verdictOf(
  decided: PolicyDecision,
  eventId: string,
  eventHash: string,
  runId: string | null,
  policy: PolicyEngine,
): EventVerdict {
  return {
    eventId,
    eventHash,
    runId,
    decision: decided.decision,
    ruleId: decided.rule_id,
    severity: decided.severity,
    reason: decided.reason,
    advisory:
      decided.advisory === null
        ? null
        : {
            ruleId: decided.advisory.rule_id,
            decision: decided.advisory.decision,
            reason: decided.advisory.reason,
          },
    policy: policy.policy.source,
  };
}

/** The leaf of a verdict in its batch's judgment tree. */
function verdictLeaf(verdict: EventVerdict): string {
  return decisionLeaf({
    event_id: verdict.eventId,
    event_hash: verdict.eventHash,
    decision: verdict.decision,
    rule_id: verdict.ruleId,
    severity: verdict.severity,
    reason: verdict.reason,
    advisory_rule_id: verdict.advisory?.ruleId ?? null,
    advisory_decision: verdict.advisory?.decision ?? null,
    advisory_reason: verdict.advisory?.reason ?? null,
    policy: verdict.policy,
  });
}

function killOf(verdict: EventVerdict, match: Correlation): KillVerdict {
  return {
    eventId: verdict.eventId,
    bindingId: match.binding.binding_id,
    runId: match.binding.run_id,
    toolCallId: match.binding.tool_call_id,
    ruleId: verdict.ruleId,
    reason: verdict.reason,
  };
}
