/**
 * The hook spool: hook events that reached no daemon, which provd-hook appended to
 * `<data dir>/hook-spool/<uid>.ndjson` (native/hook-client/spool.c) after answering them by
 * hooks.on_daemon_down. The daemon makes the dir (mode 1733: every user may add a file, none may
 * list the dir or remove another's file) and, at its next start, stores each spooled event as its
 * session's event at the time it was spooled, with the decision the client answered, then records
 * the gap: one coverage gap (`hook_daemon_down`) per run and counters of source `hook_spool`.
 *
 * A file is read only when it is a regular file owned by the uid it is named for and closed to
 * others; each line is hostile input like any payload (its shape checked, its payload read by the
 * agent's folder as over HTTP). The file is renamed before it is read, so a hook appending at that
 * moment writes to the renamed file or to a new one; it is removed once stored. Beside it the reader
 * keeps its place (spool-progress.ts), so a daemon killed while reading resumes after the last line
 * stored and stores none twice: the one line whose store a kill may have cut is counted `in_doubt`.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  chmodSync,
} from 'node:fs';
import { join } from 'node:path';
import typia, { type tags } from 'typia';
import { parseRfc3339 } from '../shared/rfc3339.js';
import { log } from '../shared/log.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { HookGap } from '../telemetry/hook-loss.sql.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import { agentHarnesses } from './agents.js';
import { handleHook, type HookDeps } from './hooks.route.js';
import { SpoolProgress } from './spool-progress.js';

export const hookSpoolDirName = 'hook-spool';

/** What the client may write past its 16 MiB bound (overflow lines) is cut at 17 MiB. */
const maxFileBytes = 17 * 1024 * 1024;

/** One line of the spool, as spool.c writes it. */
interface SpoolLine {
  time: string & tags.MaxLength<64>;
  agent: string & tags.MaxLength<32>;
  answered: 'allow' | 'deny';
  /** True when the whole request reached the daemon but no answer came: the daemon may hold it. */
  sent?: boolean;
  run?: string & tags.MaxLength<256>;
  payload?: string;
  /** Past the spool's bound: only the time is kept. */
  overflow?: true;
}

const isSpoolLine = typia.createIs<SpoolLine>();

/** What a start's read of the spool found. */
export interface SpoolReading {
  stored: number;
  gaps: HookGap[];
  counters: Record<string, number>;
}

/** Makes `<dataDir>/hook-spool` (mode 1733, whatever the umask); returns its path. */
export function ensureHookSpoolDir(dataDir: string): string {
  const dir = join(dataDir, hookSpoolDirName);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o1733);
  return dir;
}

/** Stores every spooled event, records the gaps and counters; the files read are removed. */
export async function readHookSpool(
  dataDir: string,
  hooks: HookDeps,
  counters: QueryClient<TelemetryKinds>,
): Promise<SpoolReading> {
  const dir = ensureHookSpoolDir(dataDir);
  const reading = new SpoolTally();
  for (const name of readdirSync(dir)) {
    // `<uid>.ndjson`, or one a killed daemon was reading (read on from where it stopped)
    const [, uid, taking] = /^(\d{1,10})\.ndjson(\.\d+\.reading)?$/.exec(name) ?? [];
    if (uid === undefined) continue;
    const taken = taking === undefined ? join(dir, `${name}.${process.pid}.reading`) : join(dir, name);
    if (taking === undefined) {
      // a fresh reading: a record left by a reading of that name (an earlier pid) is not of this one
      SpoolProgress.remove(taken);
      renameSync(join(dir, name), taken);
    }
    const bytes = readOwnedFile(taken, Number(uid));
    if (bytes === null) reading.count('refused_files');
    else await storeLines(bytes, taken, Number(uid), hooks, reading);
    rmSync(taken, { force: true });
    SpoolProgress.remove(taken);
  }
  const result = reading.result();
  if (result.gaps.length > 0 || Object.keys(result.counters).length > 0) {
    await counters.queryJson(
      'hookLoss',
      {
        gaps: result.gaps,
        counters: Object.entries(result.counters).map(([counter, value]) => ({
          source: 'hook_spool',
          counter,
          value,
        })),
      },
      { deadlineMs: 30_000, verdictMs: 30_000 },
    );
  }
  return result;
}

/**
 * Stores the file's lines from where an earlier reading of it stopped: the place is kept before and
 * after each line, so a line a kill may have cut between its store and the place's update is
 * neither stored again nor lost silently (counted `in_doubt` in its run's gap).
 */
async function storeLines(
  bytes: Buffer,
  taken: string,
  uid: number,
  hooks: HookDeps,
  tally: SpoolTally,
): Promise<void> {
  const progress = SpoolProgress.open(taken);
  let start = progress.resumeAt;
  if (progress.inDoubt !== null) {
    const end = lineEnd(bytes, progress.inDoubt);
    doubtfulLine(bytes.subarray(progress.inDoubt, end).toString('utf8'), tally);
    start = end + 1;
  }
  try {
    while (start < bytes.length) {
      const end = lineEnd(bytes, start);
      if (end > start) {
        progress.storing(start);
        await storeLine(bytes.subarray(start, end).toString('utf8'), uid, hooks, tally);
      }
      start = end + 1;
      progress.stored(start);
    }
  } finally {
    progress.close();
  }
}

function lineEnd(bytes: Buffer, start: number): number {
  const end = bytes.indexOf(0x0a, start);
  return end === -1 ? bytes.length : end;
}

/** The file's bytes when it is a regular file of `uid` closed to others; null (logged) otherwise. */
function readOwnedFile(path: string, uid: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    log('warn', 'a hook spool file could not be opened', { path, error: String(error) });
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
      log('warn', 'a hook spool file not owned by the uid it is named for, or open to others, was refused', {
        path,
        owner: stat.uid,
        mode: (stat.mode & 0o7777).toString(8),
      });
      return null;
    }
    const bytes = Buffer.alloc(Math.min(stat.size, maxFileBytes));
    let got = 0;
    while (got < bytes.length) {
      const read = readSync(fd, bytes, got, bytes.length - got, got);
      if (read === 0) break;
      got += read;
    }
    return bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** A line's shape and time, or null when it is not a spool line. */
function spoolLineOf(text: string): { line: SpoolLine; spooledNs: bigint } | null {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return null;
  }
  const spooledNs = isSpoolLine(line) ? parseRfc3339(line.time) : undefined;
  return isSpoolLine(line) && spooledNs !== undefined ? { line, spooledNs } : null;
}

/** A line an earlier reading may have stored when it was killed: counted in its run's gap, not stored. */
function doubtfulLine(text: string, tally: SpoolTally): void {
  const parsed = spoolLineOf(text);
  if (parsed === null) return tally.count('invalid_lines');
  tally.event(parsed.line.run ?? sessionOf(parsed.line.payload), parsed.spooledNs, 'in_doubt');
}

async function storeLine(text: string, uid: number, hooks: HookDeps, tally: SpoolTally): Promise<void> {
  const parsed = spoolLineOf(text);
  if (parsed === null) return tally.count('invalid_lines');
  const { line, spooledNs } = parsed;
  const harness = agentHarnesses.find((agent) => agent.name === line.agent);
  if (line.overflow === true) return tally.event(null, spooledNs, 'overflowed');
  const runId = line.run ?? sessionOf(line.payload);
  if (harness === undefined || line.payload === undefined)
    return tally.event(runId, spooledNs, 'invalid_events');
  if (line.sent === true) return tally.event(runId, spooledNs, 'sent_unanswered');
  const caller = { transport: 'spool' as const, uid, spooled_ns: String(spooledNs), answered: line.answered };
  try {
    const reply = await handleHook(hooks, harness, caller, Buffer.from(line.payload), line.run);
    tally.event(runId, spooledNs, reply.status === 200 ? 'stored' : 'invalid_events');
  } catch (error) {
    log('warn', 'a spooled hook event could not be stored', { agent: line.agent, error: String(error) });
    tally.event(runId, spooledNs, 'store_failed');
  }
}

/** The run a spooled event goes to when the client named none: its session id, as over the socket. */
function sessionOf(payload: string | undefined): string | null {
  try {
    const session = (JSON.parse(payload ?? '') as { session_id?: unknown }).session_id;
    return typeof session === 'string' && session.length <= 256 ? session : null;
  } catch {
    return null;
  }
}

/** Counts a start's spool by outcome, and per run the span of its events. */
class SpoolTally {
  private readonly counters = new Map<string, number>();
  private readonly runs = new Map<
    string | null,
    { start: bigint; end: bigint; outcomes: Map<string, number> }
  >();

  count(counter: string): void {
    this.counters.set(counter, (this.counters.get(counter) ?? 0) + 1);
  }

  event(runId: string | null, ns: bigint, outcome: string): void {
    this.count(outcome);
    const run = this.runs.get(runId) ?? { start: ns, end: ns, outcomes: new Map<string, number>() };
    if (ns < run.start) run.start = ns;
    if (ns > run.end) run.end = ns;
    run.outcomes.set(outcome, (run.outcomes.get(outcome) ?? 0) + 1);
    this.runs.set(runId, run);
  }

  result(): SpoolReading {
    const gaps: HookGap[] = [...this.runs].map(([runId, run]) => ({
      kind: 'hook_daemon_down',
      run_id: runId,
      start_ns: String(run.start),
      end_ns: String(run.end),
      events: [...run.outcomes.values()].reduce((sum, n) => sum + n, 0),
      detail: {
        reason: 'the hook events reached no daemon; answered by hooks.on_daemon_down',
        ...Object.fromEntries(run.outcomes),
      },
    }));
    return { stored: this.counters.get('stored') ?? 0, gaps, counters: Object.fromEntries(this.counters) };
  }
}
