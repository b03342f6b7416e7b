/**
 * A run as an in-toto Statement v1 (in-toto/attestation spec/v1/statement.md) whose predicate is
 * the Runtime Trace predicate v0.2 (spec/predicates/runtime-trace.md): what provd's store says the
 * run did, with only the digests provd computed itself. Pure: the facts come from attest-facts.sql.ts.
 */
import type { Count } from '../../shared/schema/wire-types.js';

export const statementType = 'https://in-toto.io/Statement/v1';
export const runtimeTraceType = 'https://in-toto.io/attestation/runtime-trace/v0.2';
/** DSSE payload type of an in-toto statement. */
export const inTotoPayloadType = 'application/vnd.in-toto+json';
/** `monitor.type`: provd's store, whatever sensor fed it (each entry names its `source`). */
export const monitorType = 'urn:provd:monitor:v1';
/** `monitoredProcess.type`: a provd run (an agent session, a recorded command, a watched agent). */
export const runProcessType = 'urn:provd:run:v1';

/** An in-toto ResourceDescriptor: at least one of `uri` and `digest` is set (the spec's rule). */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  /** algorithm to lower-case hex, e.g. `{ "sha256": "..." }` */
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

/** One exec of the run, as the event that saw it stored it. */
export interface TraceProcess {
  eventType: 'process';
  processBinary: string | null;
  arguments: string[];
  /** present when `processBinary` or `arguments` were cut to their first 4096 characters */
  truncated?: true;
  pid: number | null;
  ppid: number | null;
  uid: number | null;
  comm: string | null;
  time: string;
  source: string;
  evidenceLevel: string;
  /** the event's id and its hash in provd's graph (`GET /v1/graph/explain?event=ID`) */
  eventId: string;
  eventHash: string;
}

/** One remote endpoint the run connected to, or one name it asked DNS for (`hostname` alone). */
export interface TraceNetwork {
  ip?: string;
  hostname?: string;
  port?: number;
  eventType: string;
  /** events of the run with this destination, and the first one's process */
  events: Count;
  firstSeen: string;
  invokingProcess: { pid: number | null; comm: string | null };
}

/** What the lists left out past their bounds, and what could not be stated honestly. */
export interface TraceOmissions {
  process: Count;
  /** past the bound, or a DNS name too long to state whole (over 4096 characters) */
  network: Count;
  /** past the bound, a path too long to state whole (over 4096 characters), or a relative one */
  fileAccess: Count;
  /** files the run wrote with a digest, beyond the subjects' bound */
  fileSubjects: Count;
  /** loader and locale opens every exec makes, left out as every view of a run does */
  loaderOpens: Count;
  /** paths the sensor saw written or renamed that no recorded snapshot hashed: no digest, no subject */
  writtenWithoutDigest: Count;
}

/**
 * Capture loss recorded while the run was traced (as GET /v1/observe/summary's `coverage`): when
 * either count is above 0, the trace is known to miss events.
 */
export interface TraceCoverage {
  /** coverage gaps tied to the run */
  runGaps: Count;
  /** coverage gaps tied to no run whose interval meets the run's span */
  hostGapsInSpan: Count;
}

/** The Runtime Trace predicate (v0.2), with provd's extension fields `provdOmitted` and `provdCoverage`. */
export interface RuntimeTracePredicate {
  monitor: { type: string };
  monitoredProcess: { hostID: string; type: string; event: string };
  monitorLog: {
    process: TraceProcess[];
    network: TraceNetwork[];
    fileAccess: ResourceDescriptor[];
  };
  metadata: { buildStartedOn?: string; buildFinishedOn?: string };
  provdOmitted: TraceOmissions;
  provdCoverage: TraceCoverage;
}

/** An in-toto Statement v1 over a run. */
export interface RunStatement {
  _type: typeof statementType;
  subject: ResourceDescriptor[];
  predicateType: typeof runtimeTraceType;
  predicate: RuntimeTracePredicate;
}

/** A file a recorded command left with the content of this digest (a `file_effect` object). */
export interface WrittenFile {
  path: string;
  sha256: string;
  effect: 'created' | 'modified';
  toolCallId: string;
  objectHash: string;
}

/** What the store holds of a run, read in one snapshot (attest-facts.sql.ts). */
export interface RunFacts {
  runId: string;
  host: string;
  /** the address of the run's latest signed checkpoint, which names the heads of all its chains */
  checkpoint: { hash: string; index: number };
  startedOn: string | null;
  finishedOn: string | null;
  processes: TraceProcess[];
  network: TraceNetwork[];
  fileAccess: ResourceDescriptor[];
  written: WrittenFile[];
  omitted: TraceOmissions;
  coverage: TraceCoverage;
}

/** `sha256:<hex>` as an in-toto digest set. */
export function digestSet(address: string): Record<string, string> {
  const [algorithm, hex] = address.split(':', 2);
  if (algorithm !== 'sha256' || hex === undefined || !/^[0-9a-f]{64}$/.test(hex))
    throw new Error(`failed to read digest ${address}: not sha256:<64 hex>`);
  return { sha256: hex };
}

/** The statement over `facts`: the run's checkpoint and its written files as subjects. */
export function runStatement(facts: RunFacts): RunStatement {
  const root: ResourceDescriptor = {
    name: `run:${facts.runId}`,
    digest: digestSet(facts.checkpoint.hash),
    annotations: { provdObject: 'checkpoint', chainIndex: facts.checkpoint.index },
  };
  const files = facts.written.map((file): ResourceDescriptor => ({
    name: file.path,
    digest: digestSet(file.sha256),
    annotations: { effect: file.effect, toolCallId: file.toolCallId, provdObject: file.objectHash },
  }));
  const metadata: RuntimeTracePredicate['metadata'] = {};
  if (facts.startedOn !== null) metadata.buildStartedOn = facts.startedOn;
  if (facts.finishedOn !== null) metadata.buildFinishedOn = facts.finishedOn;
  return {
    _type: statementType,
    subject: [root, ...files],
    predicateType: runtimeTraceType,
    predicate: {
      monitor: { type: monitorType },
      monitoredProcess: {
        hostID: `urn:provd:host:${encodeURIComponent(facts.host)}`,
        type: runProcessType,
        event: facts.runId,
      },
      monitorLog: { process: facts.processes, network: facts.network, fileAccess: facts.fileAccess },
      metadata,
      provdOmitted: facts.omitted,
      provdCoverage: facts.coverage,
    },
  };
}
