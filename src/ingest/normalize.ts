/**
 * One normalize task (workers/normalize.task.ts): parse a slice of NDJSON, correlate each event with
 * the binding replica, hash it, and write the rows file the store actor will load. Returns only small
 * data: counts, errors, window deltas and per-run digests.
 */
import { canonicalJson } from '../provenance/canonical-json.js';
import { decisionLeaf } from '../provenance/decision-leaf.js';
import { merkleRoot } from '../provenance/merkle.js';
import type { BindingReplica } from '../telemetry/binding-replica.js';
import type { Correlation } from '../telemetry/binding-index.js';
import type { IngestFormat, LineError, ParsedEvent } from '../telemetry/event.js';
import { hashEvent } from '../telemetry/event-hash.js';
import { encodeEventRow, type EventRecord } from '../telemetry/event-row.js';
import { eventBytes, isRisky, WindowDeltas, type WindowDelta } from '../telemetry/window-deltas.js';
import type { BatchDigest } from '../telemetry/batch-commit.js';
import type { CounterDelta } from '../telemetry/producer-counters.js';
import { reportedGap, type ReportedGap } from '../telemetry/reported-gaps.js';
import { estimateRowBytes } from '../telemetry/spool.js';
import { decodeSensorBatch } from '../sensor/decode-records.js';
import type { EventVerdict, KillVerdict } from '../shared/event-verdict.js';
import { eventSubject } from '../security/policy/event-subject.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import { parseNdjson } from './parse-ndjson.js';
import { RowsFile } from './rows-file.js';
import { ProducerTally } from './producer-tally.js';
import { missingTime, stampReceived } from './received-time.js';

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
  windows: WindowDelta[];
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
  const { events, errors, rejected, rejectedByCode } =
    task.format === 'sensor' ? decodeSensorBatch(task.bytes) : parseNdjson(task.bytes, task.format, 1);
  const deltas = new WindowDeltas();
  const hashesByRun = new Map<string | null, string[]>();
  const leavesByRun = new Map<string | null, string[]>();
  const rows = new RowsFile(task.file);
  const tally = new ProducerTally();
  const gaps: ReportedGap[] = [];
  const verdicts: EventVerdict[] = [];
  const kills: KillVerdict[] = [];
  let pending = 0;
  let pendingBytes = 0;
  try {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.time === missingTime) {
        stampReceived(event, task.ingestedNs);
        tally.count(event.source, 'no_capture_time');
      }
      const attrsJson = canonicalJson(event.attrs);
      const hash = hashEvent(event, attrsJson);
      const match = replica.index.correlate(event);
      const record = eventRecord(event, `${task.batchId}.${i}`, match, task.ingestedNs, hash);
      if (unstorableComm !== undefined && event.comm === unstorableComm) record.pid = -1;
      const verdict = judge(policy, record);
      if (verdict !== null) {
        verdicts.push(verdict);
        record.judged = true;
        const leaves = leavesByRun.get(record.runId);
        if (leaves === undefined) leavesByRun.set(record.runId, [verdictLeaf(verdict)]);
        else leaves.push(verdictLeaf(verdict));
        if (verdict.decision === 'kill' && match !== undefined) kills.push(killOf(verdict, match));
      }
      const row = encodeEventRow(i, record, attrsJson);
      rows.append(row);
      tally.count(event.source, 'accepted');
      if (event.type === 'generic') tally.count(event.source, `generic:${String(event.attrs.kind)}`);
      const gap = reportedGap(event, record.id);
      if (gap !== undefined) {
        gaps.push(gap);
        tally.count(event.source, `capture_loss:${String(event.attrs.loss)}`);
      }
      if (match === undefined) {
        pending++;
        pendingBytes += estimateRowBytes(event, attrsJson);
        tally.count(event.source, 'spooled');
      }
      deltas.add(record);
      const runHashes = hashesByRun.get(record.runId);
      if (runHashes === undefined) hashesByRun.set(record.runId, [hash]);
      else runHashes.push(hash);
    }
  } catch (error) {
    rows.discard(); // a failed task leaves no file and no open descriptor behind
    throw error;
  }
  rows.close();
  return {
    batchId: task.batchId,
    file: events.length === 0 ? null : task.file,
    lines: countLines(task.bytes),
    accepted: events.length,
    rejected,
    pending,
    pendingBytes,
    errors,
    windows: deltas.list(),
    digests: [...hashesByRun].map(([runId, hashes]) => {
      const leaves = leavesByRun.get(runId) ?? [];
      return {
        runId,
        events: hashes.length,
        merkleRoot: merkleRoot(hashes),
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

/** The policy's decision on a stored event, or null when the policy simply allows it. */
function judge(policy: PolicyEngine, record: EventRecord): EventVerdict | null {
  const decided = policy.evaluate(eventSubject(record.type, record.attrs));
  if (decided.decision === 'allow' && decided.advisory === null) return null;
  return {
    eventId: record.id,
    eventHash: record.hash,
    runId: record.runId,
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

/** An event with its id, correlation and hash: one row of the events table. */
export function eventRecord(
  event: ParsedEvent,
  id: string,
  match: Correlation | undefined,
  ingestedNs: bigint,
  hash: string,
): EventRecord {
  // an explicit literal, not a spread: spreading made dictionary-mode objects, 40x slower here
  return {
    type: event.type,
    source: event.source,
    time: event.time,
    timeNs: event.timeNs,
    pid: event.pid,
    tgid: event.tgid,
    ppid: event.ppid,
    uid: event.uid,
    comm: event.comm,
    cgroupId: event.cgroupId,
    containerId: event.containerId,
    attrs: event.attrs,
    id,
    runId: match?.binding.run_id ?? null,
    toolCallId: match?.binding.tool_call_id ?? null,
    bindingId: match?.binding.binding_id ?? null,
    method: match?.method ?? 'none',
    confidence: match?.confidence ?? null,
    evidenceLevel: match?.evidenceLevel ?? 'uncorrelated',
    spoolState: match === undefined ? 'pending' : 'settled',
    ingestedNs,
    hash,
    risky: isRisky(event.type, event.attrs),
    bytes: eventBytes(event.attrs),
    judged: false,
  };
}

/** Lines in a slice: newlines, plus a final line without one. */
function countLines(bytes: Uint8Array): number {
  let lines = 0;
  let at = bytes.indexOf(10);
  while (at !== -1) {
    lines++;
    at = bytes.indexOf(10, at + 1);
  }
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? lines + 1 : lines;
}
