/**
 * The kernel's account of an agent's hook tool calls (docs/agents.md "The kernel's account of a
 * tool call"), in the store actor, set-wise over a scope of events: the shell a tool call started
 * (an exec of a shell whose argv carries the call's command as its PreToolUse gave it, within the
 * call) and every process below it are tied to the call (`hook_exec_match`); a write, rename or
 * unlink of the call's path by a process of no tool call, within the call, is tied to it
 * (`hook_path_time`). When more than one call fits, the event keeps its binding's scope and is said
 * `_ambiguous`, its confidence 1/n of the n calls that fit: never guessed.
 *
 * It runs in every commit over the commit's positions (the calls are stored before the events of
 * their shells: a PreToolUse's write is queued before its answer leaves), and after each
 * PreToolUse and PostToolUse over the run's events since the call began, for events committed
 * before it. Only the tie columns change (tool_call_id, corr_method, corr_confidence): an event's
 * hash and the batch that seals it cover its facts alone, so a tie never touches what a checkpoint
 * signed. An event tied once stays as tied.
 */
import type { StoreConnection } from '../store/store-connection.js';
import { VARCHAR } from '../store/duckdb-api.js';
import { execute, list, raw, readRows, sql, type RawSql, type Statement } from '../store/sql.js';
import { methodCode, toolCallTies, typeCode, type ToolCallTie } from '../model/codes.js';

/** Confidence of a tie that one call alone fits. */
export const tieConfidence: Readonly<
  Record<'hook_exec_match' | 'hook_path_time' | 'hook_path_name', number>
> = {
  // a shell started within the call whose argv carries its command, and no other call fits
  hook_exec_match: 0.95,
  // a write of the call's path by the agent within the call: another writer of no tool call could match
  hook_path_time: 0.9,
  // the same, the path known only by its name through a directory fd (method hook_path_time too)
  hook_path_name: 0.8,
};

/** Tools whose command runs in a shell the agent starts (Claude Code and Codex: Bash; Gemini CLI: run_shell_command). */
export const shellTools = ['Bash', 'run_shell_command', 'exec_command', 'shell', 'local_shell'] as const;
/** Tools with which the agent writes files itself, and where their paths are. */
export const writeTools = [
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'write_file',
  'replace',
  'apply_patch',
] as const;

/** Which events a pass looks at: a commit's positions, or a run's events since an instant. */
export type TieScope = { fromSeq: bigint; toSeq: bigint } | { runId: string; sinceNs: bigint };

const code = (tie: ToolCallTie): RawSql => raw(String(methodCode(tie)));
const tieCodes = raw(toolCallTies.map((tie) => methodCode(tie)).join(', '));
const exec = raw(String(typeCode('execve')));
const writes = raw((['file_write', 'file_rename', 'file_unlink'] as const).map(typeCode).join(', '));
// a shell as argv[0] names it: bash, sh, dash, zsh, ksh, with a path or as a login shell
const shellName = '(^|/)-?(ba|da|z|k)?sh$';
// deepest process tree a pass follows from a tool call's shell
const maxDepth = 64;

/** SQL: event `e` happened within call `c` (from its PreToolUse, through its PostToolUse when stored). */
export function withinCall(e: string, c: string): Statement {
  return sql`${raw(e)}.time_ns >= ${raw(c)}.pre_ns AND (${raw(c)}.post_ns IS NULL OR ${raw(e)}.time_ns <= ${raw(c)}.post_ns)`;
}

/**
 * SQL: event `e` is an exec of a shell whose arguments after argv[0] carry call `c`'s command, as
 * given or inside single quotes (as `'\''` escapes a quote there).
 */
export function shellCarries(e: string, c: string): Statement {
  const [event, call] = [raw(e), raw(c)];
  return sql`${event}.type = ${exec} AND length(${call}.command) > 0
    AND regexp_matches(coalesce(json_extract_string(${event}.attrs, '$.argv[0]'), ''), ${shellName})
    AND len(list_filter(list_slice(json_extract_string(${event}.attrs, '$.argv[*]'), 2, 2147483647),
      arg -> contains(arg, ${call}.command) OR contains(arg, replace(${call}.command, ${"'"}, ${"'\\''"})))) > 0`;
}

/**
 * SQL: event `e` writes, renames or unlinks one of call `c`'s paths: the path itself, or, where the
 * sensor could give the path only relative to a directory fd (`/proc/self/fd/N/NAME`: Claude Code
 * writes `NAME.tmp.PID.HEX` and renames it over NAME that way), a NAME equal to the path's own name,
 * that temp suffix removed (`writesPathByName`: weaker, a name and not a path).
 */
export function writesPath(e: string, c: string): Statement {
  return sql`(${writesExactPath(e, c)} OR ${writesPathByName(e, c)})`;
}

function writesExactPath(e: string, c: string): Statement {
  const [event, call] = [raw(e), raw(c)];
  return sql`${event}.type IN (${writes}) AND list_has_any(${call}.paths,
    [json_extract_string(${event}.attrs, '$.path'), json_extract_string(${event}.attrs, '$.new_path')])`;
}

/** The NAME of a directory-fd-relative path (`/proc/self/fd/N/NAME`), a writer's temp suffix removed; else null. */
function fdRelativeName(path: RawSql): RawSql {
  return raw(`CASE WHEN regexp_matches(${path.text}, '^/proc/self/fd/[0-9]+/[^/]+$')
    THEN regexp_replace(regexp_extract(${path.text}, '[^/]+$'), '\\.tmp\\.[0-9]+\\.[0-9a-f]+$', '') END`);
}

function writesPathByName(e: string, c: string): Statement {
  const [event, call] = [raw(e), raw(c)];
  const path = fdRelativeName(raw(`json_extract_string(${e}.attrs, '$.path')`));
  const newPath = fdRelativeName(raw(`json_extract_string(${e}.attrs, '$.new_path')`));
  return sql`${event}.type IN (${writes}) AND list_has_any(
    list_transform(${call}.paths, p -> regexp_extract(p, '[^/]+$')), list_filter([${path}, ${newPath}], n -> n IS NOT NULL))`;
}

function inScope(alias: string, runIds: readonly string[], scope: TieScope): Statement {
  const a = raw(alias);
  const runs = sql`${a}.run_id IN (SELECT unnest(${list(runIds, VARCHAR)}))`;
  return 'fromSeq' in scope
    ? sql`${runs} AND ${a}.seq >= ${scope.fromSeq} AND ${a}.seq < ${scope.toSeq}`
    : sql`${a}.run_id = ${scope.runId} AND ${a}.time_ns >= ${scope.sinceNs}`;
}

/**
 * The runs that hold hook tool calls, kept in memory on the store thread (one entry per agent
 * session), so a commit of no such run costs no statement: read at start, told of each new one.
 */
export class HookRuns {
  private readonly runs = new Set<string>();

  /** Reads the runs holding hook tool calls. */
  async load(connection: StoreConnection): Promise<void> {
    const rows = await readRows<{ run_id: string }>(
      connection,
      sql`SELECT DISTINCT t.run_id FROM tool_calls t JOIN objects o ON o.hash = t.object_hash
          WHERE o.kind = 'tool_call' AND json_extract_string(o.body, '$.payload.source') = 'hook'`,
    );
    for (const row of rows) this.runs.add(row.run_id);
  }

  /** A hook tool call of `runId` was stored. */
  add(runId: string): void {
    this.runs.add(runId);
  }

  /** Every run holding hook tool calls. */
  all(): string[] {
    return [...this.runs];
  }

  /** Those of `runIds` that hold hook tool calls, each once. */
  among(runIds: Iterable<string | null>): string[] {
    const found = new Set<string>();
    if (this.runs.size === 0) return [];
    for (const runId of runIds) if (runId !== null && this.runs.has(runId)) found.add(runId);
    return [...found];
  }
}

/**
 * Whether the run holds an event since `sinceNs` that no tie has claimed: what the pass of a hook
 * tool call would look at (its tie_events). One read; without such an event the pass would tie nothing.
 */
export async function hasUntiedEvents(
  connection: StoreConnection,
  runId: string,
  sinceNs: bigint,
): Promise<boolean> {
  const rows = await readRows(
    connection,
    sql`SELECT 1 FROM events e WHERE ${inScope('e', [runId], { runId, sinceNs })}
        AND e.corr_method NOT IN (${tieCodes}) LIMIT 1`,
  );
  return rows.length > 0;
}

/**
 * Ties the untied events of `scope` in `runIds` (runs holding hook tool calls) to their tool calls;
 * returns how many it tied. Call in a write transaction.
 */
export async function tieToolCallEvents(
  connection: StoreConnection,
  runIds: readonly string[],
  scope: TieScope,
): Promise<number> {
  if (runIds.length === 0) return 0;
  const runs = sql`(SELECT unnest(${list(runIds, VARCHAR)}))`;
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE tie_events AS
        SELECT e.seq, e.run_id, e.type, e.time_ns, coalesce(e.tgid, e.pid, -1) AS tgid, e.ppid, e.attrs FROM events e
        WHERE ${inScope('e', runIds, scope)} AND e.corr_method NOT IN (${tieCodes})`,
  );
  try {
    const [held] = await readRows<{ n: bigint }>(connection, sql`SELECT count(*) AS n FROM tie_events`);
    if (held!.n === 0n) return 0;
    await readCalls(connection, runs);
    await readTiedProcesses(connection, runs);
    await findShells(connection);
    await followChildren(connection);
    const tied = await tieProcessEvents(connection, runIds, scope);
    return tied + (await tieWrites(connection, runIds, scope));
  } finally {
    for (const table of ['tie_events', 'tie_calls', 'tie_procs', 'tie_writes'])
      await execute(connection, sql`DROP TABLE IF EXISTS ${raw(table)}`);
  }
}

/**
 * The runs' hook tool calls that were let run and may still hold an event of the pass (as hookCalls
 * reads them), into tie_calls.
 */
async function readCalls(connection: StoreConnection, runs: Statement): Promise<void> {
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE tie_calls AS
        SELECT * FROM (${hookCalls(runs)})
        WHERE NOT denied AND (post_ns IS NULL OR post_ns >= (SELECT min(time_ns) FROM tie_events))`,
  );
}

/**
 * A query of the hook tool calls of `runs` (a subquery of run ids) as ties read them: run_id,
 * tool_call_id, pre_ns and post_ns (the call's window: its PreToolUse and PostToolUse as stored),
 * denied, the command of a shell tool, the absolute paths of a write tool (apply_patch's from its
 * patch, relative ones against the call's cwd). The input is the hook_content the tool_call
 * object names by hash.
 */
export function hookCalls(runs: Statement): Statement {
  const input = (path: string): RawSql => raw(`json_extract_string(input, '${path}')`);
  return sql`WITH c AS (
      SELECT t.run_id, t.tool_call_id, t.started_ns AS pre_ns, t.ended_ns AS post_ns, t.status = 'denied' AS denied,
        json_extract_string(o.body, '$.payload.tool_name') AS tool_name,
        json_extract_string(o.body, '$.payload.cwd') AS cwd, decode(a.content) AS input
      FROM tool_calls t JOIN objects o ON o.hash = t.object_hash
        LEFT JOIN artifacts a ON a.hash = json_extract_string(o.body, '$.payload.input_hash')
      WHERE t.run_id IN ${runs} AND o.kind = 'tool_call' AND json_extract_string(o.body, '$.payload.source') = 'hook')
    SELECT run_id, tool_call_id, pre_ns, post_ns, denied, tool_name,
      CASE WHEN tool_name IN (SELECT unnest(${list([...shellTools], VARCHAR)}))
        THEN coalesce(${input('$.command')}, ${input('$.cmd')}) END AS command,
      CASE WHEN tool_name IN (SELECT unnest(${list([...writeTools], VARCHAR)})) THEN list_filter(list_transform(
        [${input('$.file_path')}, ${input('$.notebook_path')}] || CASE WHEN tool_name = 'apply_patch'
          THEN regexp_extract_all(coalesce(${input('$.command')}, ${input('$.patch')}, ${input('$.input')}, ''),
            '\\*\\*\\* (?:Add File|Update File|Delete File|Move to): ([^\\n]+)', 1) ELSE [] END,
        p -> CASE WHEN p IS NULL OR p = '' THEN NULL WHEN starts_with(p, '/') THEN p
          WHEN cwd IS NOT NULL THEN rtrim(cwd, '/') || '/' || p END), p -> p IS NOT NULL) END AS paths
    FROM c`;
}

/**
 * The processes tied in earlier passes: each tool call's shells and what they started. A tied event
 * comes after its call's PreToolUse, so the store's row groups from before the runs' first tool call
 * are skipped by their time range, not read.
 */
async function readTiedProcesses(connection: StoreConnection, runs: Statement): Promise<void> {
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE tie_procs AS
        SELECT run_id, coalesce(tgid, pid, -1) AS tgid, any_value(tool_call_id) AS tool_call_id,
          any_value(corr_method) AS method, min(corr_confidence) AS confidence, min(time_ns) AS since_ns
        FROM events WHERE run_id IN ${runs}
          AND corr_method IN (${code('hook_exec_match')}, ${code('hook_exec_ambiguous')})
          AND time_ns >= (SELECT min(started_ns) FROM tool_calls WHERE run_id IN ${runs})
        GROUP BY 1, 2`,
  );
}

/**
 * New tool call shells: execs of a shell whose arguments after argv[0] carry a call's command (as
 * given, or inside single quotes as `'\''` escapes a quote), within the call, whose parent is no
 * tied process and no such exec (those are its children). A process that more than one call fits
 * is ambiguous.
 */
async function findShells(connection: StoreConnection): Promise<void> {
  await execute(
    connection,
    sql`INSERT INTO tie_procs
        WITH matched AS (
          SELECT e.run_id, e.tgid, e.ppid, e.time_ns, c.tool_call_id
          FROM tie_events e JOIN tie_calls c ON c.run_id = e.run_id
          WHERE ${shellCarries('e', 'c')} AND ${withinCall('e', 'c')}),
        shells AS (
          SELECT * FROM matched m
          WHERE NOT EXISTS (SELECT 1 FROM tie_procs p WHERE p.run_id = m.run_id AND p.tgid IN (m.tgid, m.ppid))
            AND NOT EXISTS (SELECT 1 FROM matched o
                            WHERE o.run_id = m.run_id AND o.tgid = m.ppid AND o.time_ns <= m.time_ns))
        SELECT run_id, tgid,
          CASE WHEN count(DISTINCT tool_call_id) = 1 THEN any_value(tool_call_id) END,
          CASE WHEN count(DISTINCT tool_call_id) = 1 THEN ${code('hook_exec_match')} ELSE ${code('hook_exec_ambiguous')} END,
          CASE WHEN count(DISTINCT tool_call_id) = 1 THEN ${tieConfidence.hook_exec_match}
            ELSE 1.0 / count(DISTINCT tool_call_id) END,
          min(time_ns)
        FROM shells GROUP BY run_id, tgid`,
  );
}

/** Every process a tied process started, and theirs, as tied as it is. */
async function followChildren(connection: StoreConnection): Promise<void> {
  for (let depth = 0; depth < maxDepth; depth++) {
    const result = await execute(
      connection,
      sql`INSERT INTO tie_procs
          SELECT e.run_id, e.tgid, any_value(p.tool_call_id), any_value(p.method), min(p.confidence), min(e.time_ns)
          FROM tie_events e JOIN tie_procs p ON p.run_id = e.run_id AND p.tgid = e.ppid AND e.time_ns >= p.since_ns
          WHERE NOT EXISTS (SELECT 1 FROM tie_procs q WHERE q.run_id = e.run_id AND q.tgid = e.tgid)
          GROUP BY e.run_id, e.tgid`,
    );
    if (result.rowsChanged === 0) return;
  }
}

/** Sets the tie of every event of a tied process from its start on; returns how many. */
async function tieProcessEvents(
  connection: StoreConnection,
  runIds: readonly string[],
  scope: TieScope,
): Promise<number> {
  const result = await execute(
    connection,
    sql`UPDATE events SET tool_call_id = coalesce(p.tool_call_id, events.tool_call_id), corr_method = p.method,
          corr_confidence = least(coalesce(events.corr_confidence, 1.0), p.confidence)
        FROM tie_procs p
        WHERE ${inScope('events', runIds, scope)} AND events.corr_method NOT IN (${tieCodes})
          AND events.run_id = p.run_id AND coalesce(events.tgid, events.pid, -1) = p.tgid
          AND events.time_ns >= p.since_ns`,
  );
  return result.rowsChanged;
}

/** Writes of a write tool's path, within the call, by a process of no tool call; returns how many it tied. */
async function tieWrites(
  connection: StoreConnection,
  runIds: readonly string[],
  scope: TieScope,
): Promise<number> {
  await execute(
    connection,
    sql`CREATE OR REPLACE TEMP TABLE tie_writes AS
        SELECT e.seq, count(DISTINCT c.tool_call_id) AS n,
          CASE WHEN count(DISTINCT c.tool_call_id) = 1 THEN any_value(c.tool_call_id) END AS tool_call_id,
          bool_or(${writesExactPath('e', 'c')}) AS exact
        FROM tie_events e JOIN tie_calls c ON c.run_id = e.run_id
        WHERE ${writesPath('e', 'c')} AND ${withinCall('e', 'c')}
          AND NOT EXISTS (SELECT 1 FROM tie_procs p WHERE p.run_id = e.run_id AND p.tgid = e.tgid)
        GROUP BY e.seq`,
  );
  const result = await execute(
    connection,
    sql`UPDATE events SET tool_call_id = coalesce(w.tool_call_id, events.tool_call_id),
          corr_method = CASE WHEN w.n = 1 THEN ${code('hook_path_time')} ELSE ${code('hook_path_ambiguous')} END,
          corr_confidence = least(coalesce(events.corr_confidence, 1.0),
            CASE WHEN w.n > 1 THEN 1.0 / w.n WHEN w.exact THEN ${tieConfidence.hook_path_time}
              ELSE ${tieConfidence.hook_path_name} END)
        FROM tie_writes w
        WHERE ${inScope('events', runIds, scope)} AND events.corr_method NOT IN (${tieCodes}) AND events.seq = w.seq`,
  );
  return result.rowsChanged;
}
