/**
 * The per-stage profile of a stored event (`npm run bench:ingest -- --profile`): where the daemon's
 * CPU goes, per thread and per stage, over one window of the benchmark. Three sources, each exact
 * for what it measures:
 *
 * - per-thread CPU from /proc/PID/task/TID/stat at the window's edges, the threads named by the
 *   daemon's own `thread` log lines (main, store, normalize, tls, DuckDB's own threads, and libuv's
 *   pool, on which DuckDB's calls run); the rest are V8's helpers (concurrent GC, compilers);
 * - V8's CPU profile of each JS thread (`node --cpu-prof`), its samples inside the window attributed
 *   to the innermost frame that names a stage (`stageRules`), scaled to the thread's measured CPU;
 * - the store's step trace (src/store/step-trace.ts): the wall time of each statement of each
 *   commit, fold and seal inside the window. The DuckDB threads' CPU is split over those steps in
 *   proportion to their wall time: they run while the store thread waits on a statement.
 *
 * The profiler itself costs a few percent; the unprofiled figures are the benchmark's other lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CPU profile as V8 writes it (the fields read here). */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stage, and the frames that belong to it: a function name, optionally only in files ending so. */
interface StageRule {
  stage: string;
  functions: readonly string[];
  file?: string;
}

/**
 * Frames that name a stage, matched from a sample's innermost frame outwards: the first match wins,
 * so a hash inside the Merkle tree counts as `merkle`, not `hash`. Names are the functions of
 * src/ (and V8's pseudo-frames); a stage no frame reaches stays out of the table.
 */
export const stageRules: readonly StageRule[] = [
  { stage: 'gc', functions: ['(garbage collector)'] },
  // main thread
  { stage: 'http_read', functions: ['readBody'] },
  { stage: 'slice', functions: ['sliceAtLines'] },
  { stage: 'idempotency_digest', functions: ['claim'], file: 'ingest-router.js' },
  { stage: 'dispatch', functions: ['normalizeAndCommit', 'run'], file: 'piscina/dist/index.js' },
  // normalize threads
  { stage: 'bindings', functions: ['readNew'] },
  { stage: 'merkle', functions: ['merkleRoot', 'verdictLeaf', 'decisionLeaf', 'merkleRoots'] },
  { stage: 'hash', functions: ['hashEvent', 'sha256Lines'] },
  {
    stage: 'canonical_json',
    functions: ['canonicalJson', 'canonicalContent', 'canonicalOrder', 'canonicalEventContent'],
  },
  // the addon's contents, built from the lines (native/hash/native-content.cc)
  { stage: 'canonical_json', functions: ['builtContents', 'build'], file: 'slice-rows.js' },
  // the addon's content hashes and rows file (native/hash/rows.cc)
  { stage: 'hash_and_rows', functions: ['writeRowsNative', 'writeNatively', 'writeInJs'] },
  { stage: 'policy', functions: ['judge', 'evaluate', 'eventSubject'] },
  { stage: 'correlate', functions: ['correlate'] },
  { stage: 'windows', functions: ['add', 'list'], file: 'window-facts.js' },
  { stage: 'rows_write', functions: ['writeRowsFile'] },
  { stage: 'rows_encoding', functions: ['encodeEventRow', 'correlationFields'] },
  { stage: 'rows_encoding', functions: ['text', 'int'], file: 'event-row.js' },
  { stage: 'counters', functions: ['count', 'rejections', 'reportedGap', 'estimateRowBytes'] },
  { stage: 'parse', functions: ['parseNdjson', 'decodeSensorBatch'] },
  // store thread
  { stage: 'bind_values', functions: ['createValue', 'bindValue', 'bind'] },
  { stage: 'windows', functions: ['countWindows'] },
  { stage: 'digests', functions: ['insertDigests'] },
  { stage: 'decisions', functions: ['insertVerdicts', 'settleDecisions'] },
  { stage: 'settle', functions: ['settleLagging', 'settleNew', 'account'] },
  { stage: 'insert', functions: ['insertEvents'] },
  { stage: 'folds', functions: ['foldUpTo', 'catchUp'] },
  { stage: 'sealing', functions: ['sealPendingBatches', 'writeDue', 'appendToChains'] },
  { stage: 'commit', functions: ['commitGroup', 'writeGroup', 'runGroup'] },
  { stage: 'reply', functions: ['handle'], file: 'store-actor.js' },
];

/** Which thread a profile is, by a function only that thread runs. */
const threadMarkers: readonly [string, string][] = [
  ['normalize', 'normalizeBatch'],
  ['store', 'serveStoreActor'],
  ['tls', 'reassemble'],
  ['main', 'runDaemon'],
];

/** CPU seconds of each thread of `pid`, by TID (utime + stime, in USER_HZ ticks of 10 ms). */
export function readThreadCpu(pid: number): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return cpu;
}

/** The monotonic clock V8's profiles and the step trace use, in microseconds. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Thread roles by TID, from the daemon's `thread` and `threads` log lines. */
export function threadRoles(logs: readonly Record<string, unknown>[]): Map<number, string> {
  const roles = new Map<number, string>();
  for (const line of logs) {
    if (line['msg'] === 'thread' && typeof line['tid'] === 'number')
      roles.set(line['tid'], String(line['role']));
    if (line['msg'] === 'threads' && Array.isArray(line['tids']))
      for (const tid of line['tids'] as number[]) if (!roles.has(tid)) roles.set(tid, String(line['role']));
  }
  return roles;
}

/** One profiled window: what to read and what to divide by. */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
  cpuBefore: Map<number, number>;
  cpuAfter: Map<number, number>;
  roles: Map<number, string>;
  /** CPU profiles of the window (--cpu-prof), or undefined: no stage lines then. */
  profileDir: string | undefined;
  traceFile: string;
  events: number;
}

/** Microseconds per event, to two decimals. */
function perEvent(seconds: number, events: number): number {
  return Number(((seconds * 1e6) / events).toFixed(2));
}

/** CPU seconds per thread role over the window (`other`: V8's helpers and anything unnamed). */
function cpuByRole(window: Omit<ProfileWindow, 'profileDir' | 'traceFile'>): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [tid, after] of window.cpuAfter) {
    const role = window.roles.get(tid) ?? 'other';
    byRole.set(role, (byRole.get(role) ?? 0) + after - (window.cpuBefore.get(tid) ?? 0));
  }
  return byRole;
}

/** Samples of one profile inside the window, counted by stage, and which thread it is. */
function stageSamples(
  profile: CpuProfile,
  window: ProfileWindow,
): { thread: string; stages: Map<string, number> } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new Set(profile.nodes.map((node) => node.callFrame.functionName));
  const thread = threadMarkers.find(([, marker]) => names.has(marker))?.[0] ?? 'unknown';

  const stageOfNode = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = nodes.get(id)!.callFrame;
    const rule = stageRules.find(
      (candidate) =>
        candidate.functions.includes(functionName) &&
        (candidate.file === undefined || url.endsWith(candidate.file)),
    );
    const parent = parents.get(id);
    const stage = rule?.stage ?? (parent === undefined ? 'other' : stageOf(parent));
    stageOfNode.set(id, stage);
    return stage;
  };

  const stages = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.startUs || at > window.endUs) return;
    const name = nodes.get(id)!.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(root)') return;
    const stage = stageOf(id);
    stages.set(stage, (stages.get(stage) ?? 0) + 1);
  });
  return { thread, stages };
}

/** Wall ms of each step inside the window, per kind of work (commit, fold, seal), and their units. */
function stepTimes(
  window: ProfileWindow,
): Map<string, { units: number; rows: number; steps: Map<string, number> }> {
  const kinds = new Map<string, { units: number; rows: number; steps: Map<string, number> }>();
  let text = '';
  try {
    text = readFileSync(window.traceFile, 'utf8');
  } catch {
    return kinds;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const unit = JSON.parse(line) as {
      kind: string;
      at_us: number;
      total_ms: number;
      rows?: number;
      steps: Record<string, number>;
    };
    if (unit.at_us < window.startUs || unit.at_us > window.endUs) continue;
    const kind = kinds.get(unit.kind) ?? { units: 0, rows: 0, steps: new Map<string, number>() };
    kind.units++;
    kind.rows += unit.rows ?? 0;
    let stepped = 0;
    for (const [name, ms] of Object.entries(unit.steps)) {
      kind.steps.set(name, (kind.steps.get(name) ?? 0) + ms);
      stepped += ms;
    }
    // BEGIN, COMMIT and what lies between the steps
    kind.steps.set(
      'transaction',
      (kind.steps.get('transaction') ?? 0) + Math.max(0, unit.total_ms - stepped),
    );
    kinds.set(unit.kind, kind);
  }
  return kinds;
}

/** The per-thread line of a window: `phase` says which (`ingest`: until the last answer). */
export function threadLine(
  phase: string,
  window: Omit<ProfileWindow, 'profileDir' | 'traceFile'>,
): Record<string, unknown> {
  const roles = cpuByRole(window);
  const totalS = [...roles.values()].reduce((sum, seconds) => sum + seconds, 0);
  return {
    name: 'ingest.profile.threads',
    phase,
    events: window.events,
    window_s: Number(((window.endUs - window.startUs) / 1e6).toFixed(3)),
    cpu_us_per_event: perEvent(totalS, window.events),
    by_thread: Object.fromEntries(
      [...roles].map(([role, seconds]) => [role, perEvent(seconds, window.events)]),
    ),
    note: "duckdb: its own threads; pool: libuv's, which runs DuckDB's calls (and async file I/O); other: V8's helper threads (concurrent GC, compilers)",
  };
}

/** The profile's result lines (name, then fields) over the whole window, folds and seals included. */
export function profileLines(window: ProfileWindow): Record<string, unknown>[] {
  const { events } = window;
  const roles = cpuByRole(window);
  const lines: Record<string, unknown>[] = [threadLine('through folds', window)];

  // JS threads: samples by stage, scaled to the role's measured CPU (threads of one role pooled)
  const samplesByThread = new Map<string, Map<string, number>>();
  const profiles = window.profileDir === undefined ? [] : readdirSync(window.profileDir);
  for (const file of profiles.filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(window.profileDir!, file), 'utf8')) as CpuProfile;
    const { thread, stages } = stageSamples(profile, window);
    const pooled = samplesByThread.get(thread) ?? new Map<string, number>();
    for (const [stage, count] of stages) pooled.set(stage, (pooled.get(stage) ?? 0) + count);
    samplesByThread.set(thread, pooled);
  }
  for (const [thread, stages] of samplesByThread) {
    const seconds = roles.get(thread) ?? 0;
    const samples = [...stages.values()].reduce((sum, count) => sum + count, 0);
    if (samples === 0 || seconds === 0) continue;
    const sorted = [...stages].sort((a, b) => b[1] - a[1]);
    lines.push({
      name: 'ingest.profile.stages',
      thread,
      cpu_us_per_event: perEvent(seconds, events),
      stages: Object.fromEntries(
        sorted.map(([stage, count]) => [stage, perEvent((seconds * count) / samples, events)]),
      ),
    });
  }

  // the store's statements: wall time per step, and DuckDB's CPU split by those shares
  const kinds = stepTimes(window);
  const stepMs = [...kinds.values()].reduce(
    (sum, kind) => sum + [...kind.steps.values()].reduce((a, b) => a + b, 0),
    0,
  );
  // DuckDB's own threads, and libuv's pool, on which its calls run
  const duckdbS = (roles.get('duckdb') ?? 0) + (roles.get('pool') ?? 0);
  for (const [kind, { units, rows, steps }] of kinds) {
    const sorted = [...steps].sort((a, b) => b[1] - a[1]);
    lines.push({
      name: 'ingest.profile.store',
      kind,
      units,
      rows_per_unit: units === 0 ? 0 : Math.round(rows / units),
      wall_us_per_event: Object.fromEntries(sorted.map(([step, ms]) => [step, perEvent(ms / 1000, events)])),
      duckdb_cpu_us_per_event: Object.fromEntries(
        sorted.map(([step, ms]) => [step, stepMs === 0 ? 0 : perEvent((duckdbS * ms) / stepMs, events)]),
      ),
    });
  }
  return lines;
}
