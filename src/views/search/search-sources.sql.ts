/**
 * GET /api/search/sources in the store actor: where a text appears in the evidence, as a
 * case-sensitive substring of a value. Recorded tool calls are searched first (one row per
 * recorded command: the table is searched whole), then the events, by position (seq). Each page
 * searches at most `eventWindow` positions of the events table: a rare text on a large store takes
 * several pages, some of them empty, with `has_more` true until the search reaches the end, and
 * `scan` says how far it got. Bounding the positions, not the matches, bounds every request's work.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { ProvdError } from '../../shared/errors.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { Count } from '../../shared/schema/wire-types.js';
import { readRows, sql } from '../../store/sql.js';
import { evidenceName, sourceName, typeName } from '../../model/codes.js';
import { integerPart, type CursorToken } from '../../model/cursor.js';
import type { EventAttrs } from '../../telemetry/event-json.js';
import type { PageLimit } from '../../model/paging.js';
import { toolCallOf } from '../timeline/context-records.js';
import { eventValue, toolCallValue, type SourceMatch, type ToolCallSourceMatch } from './source-match.js';
import { keysetPage } from '../../store/keyset-page.js';

/** Validated parameters of one page. */
export interface SearchParams {
  q: string;
  run: string | null;
  limit: number;
  cursor: string | null;
}

/** Event positions one page searches at most. */
export const eventWindow = 262_144;

/** One page of the places a text appears (`provenance.search_sources/v1`). */
export interface SearchSources {
  schema_version: 'provenance.search_sources/v1';
  q: string;
  /** The run searched, or null for the whole store (events no binding attributed included). */
  run_id: string | null;
  limit: PageLimit;
  count: Count;
  /** True until the search reached the end: a page may hold fewer than `limit` matches, even none. */
  has_more: boolean;
  next_cursor: CursorToken | null;
  /** How far the search through the events got: positions below `position` are searched. */
  scan: { position: Count; end: Count; window: Count };
  /** Tool calls first (by run and id), then events (by position). */
  matches: SourceMatch[];
}

/** Where a page starts: after a tool call (by run, id), or after an event position. */
type Resume = { phase: 'tool_calls'; run: string; toolCall: string } | { phase: 'events'; after: bigint };

interface EventRow {
  seq: bigint;
  id: string;
  run_id: string | null;
  type: number;
  source: number;
  evidence_level: number;
  time_ns: bigint;
  tool_call_id: string | null;
  attrs: string;
}

/**
 * One page of matches. `end` is the next position the store will hand out: nothing is stored at or
 * beyond it. 404 run_not_found for an unknown run, 400 invalid_cursor for a cursor not issued here.
 */
export async function searchSources(
  connection: StoreConnection,
  params: SearchParams,
  formatVersion: number,
  end: bigint,
): Promise<SearchSources> {
  const opened = await keysetPage(
    connection,
    params,
    formatVersion,
    ['search_sources', params.q, params.run],
    3,
  );
  const resume = opened.after === null ? null : readResume(opened.after);
  const page = (matches: SourceMatch[], next: string[] | null, position: bigint): SearchSources => ({
    schema_version: 'provenance.search_sources/v1',
    q: params.q,
    run_id: params.run,
    limit: params.limit,
    count: matches.length,
    has_more: next !== null,
    next_cursor: next === null ? null : opened.next(next),
    scan: { position: Number(position), end: Number(end), window: eventWindow },
    matches,
  });
  let after = -1n;
  const matches: SourceMatch[] = [];
  if (resume === null || resume.phase === 'tool_calls') {
    const calls = await toolCallMatches(connection, params, resume ?? { run: '', toolCall: '' });
    if (calls.length > params.limit) {
      const kept = calls.slice(0, params.limit);
      const last = kept.at(-1)!;
      return page(kept, ['tool_calls', last.run_id, last.id], 0n);
    }
    matches.push(...calls);
  } else after = resume.after;
  // the events in one window of positions past `after`: one more than the page holds tells if it is full
  const upper = after + BigInt(eventWindow);
  const room = params.limit - matches.length;
  const rows = await eventMatches(connection, params, after, upper, room + 1);
  const kept = rows.slice(0, room);
  for (const row of kept) {
    const match = eventMatchOf(row, params.q);
    if (match !== null) matches.push(match);
  }
  if (rows.length > room) {
    const through = kept.at(-1)?.seq ?? after;
    return page(matches, ['events', String(through), ''], through + 1n);
  }
  const searched = upper + 1n < end ? upper + 1n : end;
  return page(matches, searched < end ? ['events', String(upper), ''] : null, searched);
}

/** The resume point a cursor's key holds, or 400 invalid_cursor. */
function readResume(key: readonly string[]): Resume {
  const [phase, first, second] = key as [string, string, string];
  if (phase === 'tool_calls') return { phase, run: first, toolCall: second };
  if (phase === 'events') return { phase, after: integerPart(first) };
  throw new ProvdError('invalid_cursor', 'cursor is not a token this daemon issued');
}

/** Tool calls after (run, toolCall) whose command, an argument or cwd holds q; at most limit + 1. */
async function toolCallMatches(
  connection: StoreConnection,
  params: SearchParams,
  from: { run: string; toolCall: string },
): Promise<ToolCallSourceMatch[]> {
  const inRun = params.run === null ? sql`` : sql` AND run_id = ${params.run}`;
  // the record's JSON text holds each value JSON-escaped: a cheap first filter, exact in JS after
  const rows = await readRows<{ run_id: string; record: string; object_hash: string }>(
    connection,
    sql`SELECT run_id, record, object_hash FROM tool_calls
        WHERE contains(record, ${escaped(params.q)})${inRun}
          AND (run_id > ${from.run} OR (run_id = ${from.run} AND tool_call_id > ${from.toolCall}))
        ORDER BY run_id, tool_call_id`,
  );
  const matches: ToolCallSourceMatch[] = [];
  for (const row of rows) {
    const call = toolCallOf(row);
    const found = toolCallValue(call, params.q);
    if (found === null) continue;
    matches.push({
      kind: 'tool_call',
      run_id: row.run_id,
      id: call.tool_call_id,
      source: 'record',
      evidence_level: call.executed ? 'self_observed' : 'context_asserted',
      time: call.started_at,
      tool_call_id: call.tool_call_id,
      object_hash: call.object_hash,
      ...found,
    });
    if (matches.length > params.limit) break;
  }
  return matches;
}

/**
 * Events at positions (after, upper] one of whose searched values holds q, in position order, at
 * most `count`. The escaped text first: a plain substring scan of attrs drops almost every row
 * before any JSON is read.
 */
function eventMatches(
  connection: StoreConnection,
  params: SearchParams,
  after: bigint,
  upper: bigint,
  count: number,
): Promise<EventRow[]> {
  const { q } = params;
  const inRun = params.run === null ? sql`` : sql` AND run_id = ${params.run}`;
  const value = (field: string): ReturnType<typeof sql> =>
    sql`contains(json_extract_string(attrs, ${'$.' + field}), ${q})`;
  return readRows<EventRow>(
    connection,
    sql`SELECT seq, id, run_id, type, source, evidence_level, time_ns, tool_call_id, attrs FROM events
        WHERE seq > ${after} AND seq <= ${upper}${inRun} AND contains(attrs, ${escaped(q)})
          AND (${value('path')} OR ${value('new_path')} OR ${value('dst_ip')} OR ${value('query')}
            OR len(list_filter(json_extract_string(attrs, '$.argv[*]'), a -> contains(a, ${q}))) > 0)
        ORDER BY seq LIMIT ${count}`,
  );
}

function eventMatchOf(row: EventRow, q: string): SourceMatch | null {
  const found = eventValue(JSON.parse(row.attrs) as EventAttrs, q);
  if (found === null) return null;
  return {
    kind: 'event',
    run_id: row.run_id,
    id: row.id,
    type: typeName(row.type),
    source: sourceName(row.source),
    evidence_level: evidenceName(row.evidence_level),
    time: formatRfc3339Nanos(row.time_ns),
    tool_call_id: row.tool_call_id,
    ...found,
  };
}

/** q as it appears inside a JSON string: each character escaped alone, so a value's text holds it whenever the value holds q. */
function escaped(q: string): string {
  return JSON.stringify(q).slice(1, -1);
}
