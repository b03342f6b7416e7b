/**
 * GET /v1/context/compare in the store actor: the recorded tool calls of two runs side by side.
 * Calls pair up by tool call id first; the calls left over pair by the same command and args, in
 * start order (a run replayed with fresh ids); the rest are only in one run. Each pair says what
 * differs (compare-tool-calls.ts); GET /api/compare/records shows one pair in full.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import type { Count, DateTimeText } from '../../shared/schema/wire-types.js';
import { toolCallSummary } from '../timeline/entry-summary.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import type { ObjectHash } from '../../model/object-hash.js';
import { requireRun } from '../../store/run-exists.sql.js';
import { compareToolCalls, type ComparedField } from './compare-tool-calls.js';
import { readToolCalls, type ToolCallFacts } from './tool-call-facts.sql.js';

/** Validated parameters: the two runs. */
export interface ContextCompareParams {
  run: string;
  other: string;
}

/** Most tool calls compared per run: the first by start. */
export const maxComparedToolCalls = 1000;

/** A tool call in one line. */
export interface ToolCallBrief {
  tool_call_id: string;
  object_hash: ObjectHash;
  status: ToolCallStatus;
  exit_code: number | null;
  started_at: DateTimeText;
  summary: string;
}

/** Two tool calls paired across the runs, and what they differ in. */
export interface MatchedToolCalls {
  /** `tool_call_id`: both runs hold the id; `command`: the same command and args, in start order. */
  matched_by: 'tool_call_id' | 'command';
  same: boolean;
  differences: ComparedField[];
  run: ToolCallBrief;
  other: ToolCallBrief;
}

/** Two runs' recorded tool calls compared (`provenance.context_compare/v1`). */
export interface ContextCompare {
  schema_version: 'provenance.context_compare/v1';
  run_id: string;
  other_run_id: string;
  /** Most tool calls compared per run (the first by start). */
  max_tool_calls: Count;
  /** False when a run holds more tool calls than were compared. */
  complete: boolean;
  counts: {
    run: Count;
    other: Count;
    matched: Count;
    differing: Count;
    only_in_run: Count;
    only_in_other: Count;
  };
  /** In the start order of `run`'s calls. */
  matched: MatchedToolCalls[];
  only_in_run: ToolCallBrief[];
  only_in_other: ToolCallBrief[];
}

/** Compares the two runs' tool calls; 404 run_not_found when either run is unknown. */
export async function compareContexts(
  connection: StoreConnection,
  params: ContextCompareParams,
): Promise<ContextCompare> {
  await requireRun(connection, params.run);
  await requireRun(connection, params.other);
  const mine = await readToolCalls(connection, params.run, null, maxComparedToolCalls);
  const theirs = await readToolCalls(connection, params.other, null, maxComparedToolCalls);
  const { pairs, onlyMine, onlyTheirs } = pairCalls(mine.calls, theirs.calls);
  const matched = pairs.map(([left, right, by]): MatchedToolCalls => {
    const { same, differences } = compareToolCalls(left, right);
    return { matched_by: by, same, differences, run: briefOf(left), other: briefOf(right) };
  });
  return {
    schema_version: 'provenance.context_compare/v1',
    run_id: params.run,
    other_run_id: params.other,
    max_tool_calls: maxComparedToolCalls,
    complete: !mine.more && !theirs.more,
    counts: {
      run: mine.calls.length,
      other: theirs.calls.length,
      matched: matched.length,
      differing: matched.filter((pair) => !pair.same).length,
      only_in_run: onlyMine.length,
      only_in_other: onlyTheirs.length,
    },
    matched,
    only_in_run: onlyMine.map(briefOf),
    only_in_other: onlyTheirs.map(briefOf),
  };
}

type Pair = [ToolCallFacts, ToolCallFacts, MatchedToolCalls['matched_by']];

/** Pairs by id, then the rest by command and args in start order (both lists are in start order). */
function pairCalls(
  mine: readonly ToolCallFacts[],
  theirs: readonly ToolCallFacts[],
): { pairs: Pair[]; onlyMine: ToolCallFacts[]; onlyTheirs: ToolCallFacts[] } {
  const byId = new Map(theirs.map((facts) => [facts.call.tool_call_id, facts]));
  const paired = new Set<ToolCallFacts>();
  const found = new Map<ToolCallFacts, Pair>();
  for (const facts of mine) {
    const other = byId.get(facts.call.tool_call_id);
    if (other === undefined) continue;
    found.set(facts, [facts, other, 'tool_call_id']);
    paired.add(other);
  }
  // what is left of the other run, per command line, oldest first
  const byCommand = new Map<string, ToolCallFacts[]>();
  for (const facts of theirs) {
    if (paired.has(facts)) continue;
    const key = commandKey(facts);
    const list = byCommand.get(key) ?? [];
    list.push(facts);
    byCommand.set(key, list);
  }
  for (const facts of mine) {
    if (found.has(facts)) continue;
    const other = byCommand.get(commandKey(facts))?.shift();
    if (other === undefined) continue;
    found.set(facts, [facts, other, 'command']);
    paired.add(other);
  }
  return {
    pairs: mine.flatMap((facts) => {
      const pair = found.get(facts);
      return pair === undefined ? [] : [pair];
    }),
    onlyMine: mine.filter((facts) => !found.has(facts)),
    onlyTheirs: theirs.filter((facts) => !paired.has(facts)),
  };
}

const commandKey = (facts: ToolCallFacts): string => JSON.stringify([facts.call.command, facts.call.args]);

function briefOf(facts: ToolCallFacts): ToolCallBrief {
  const { call } = facts;
  return {
    tool_call_id: call.tool_call_id,
    object_hash: call.object_hash,
    status: call.status,
    exit_code: call.exit_code,
    started_at: call.started_at,
    summary: toolCallSummary(call),
  };
}
