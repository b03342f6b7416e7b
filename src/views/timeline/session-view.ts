/**
 * GET /v1/timeline?view=session in the store actor: an agent session (timeline-session.ts) from
 * its hook objects, its tool_calls rows, and the events that carry its tool calls' ids. JS nests
 * the rows the facts' statements return; it never reads the run's events one by one.
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { evidenceName, methodName, typeName } from '../../model/codes.js';
import type { ToolCallStatus } from '../../provenance/record/record-answer.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { jsonText, type JsonText } from '../../store/json-text.js';
import { requireRun } from '../../store/run-exists.sql.js';
import type { EventAttrs } from '../../telemetry/event-json.js';
import { eventObject, eventSummary } from './entry-summary.js';
import {
  readEventDecisions,
  readHookObjects,
  readListedEvents,
  readProcessCounts,
  readTexts,
  readToolCallStates,
  type ListedEventRow,
  type ProcessCountRow,
} from './session-facts.sql.js';
import type {
  SessionBounds,
  SessionCounts,
  SessionDecision,
  SessionHookItem,
  SessionItem,
  SessionProcess,
  SessionText,
  SessionToolCallItem,
  TimelineSession,
} from './timeline-session.js';

/** The params of the `timelineSession` store query. */
export interface TimelineSessionParams {
  run: string;
  /** List loader and locale opens too. */
  all: boolean;
}

/** How much the view lists. */
export const sessionBounds: SessionBounds = { items: 500, events_per_tool_call: 200, text_chars: 2000 };

/** A hook object's body as the hook store wrote it (provenance/hooks/hook-store.sql.ts). */
interface HookBody {
  kind: string;
  parents: string[];
  payload: {
    index: number;
    agent?: string;
    event?: string;
    native_event?: string;
    tool_call_id?: string | null;
    tool_name?: string | null;
    decision?: SessionDecision | null;
    stream?: string;
    content_hash?: string;
    prompt_hash?: string;
    assistant_message_hash?: string;
    duration_ms?: number | null;
  };
}

const listedEvents = new Set(['session_start', 'user_prompt', 'stop', 'session_end']);

/** The TimelineSession body of a run, as JSON text. */
export async function timelineSession(
  connection: StoreConnection,
  side: StoreConnection,
  params: TimelineSessionParams,
): Promise<JsonText<TimelineSession>> {
  const { run, all } = params;
  await requireRun(side, run);
  const objects = await readHookObjects(side, run);
  // a run no hook wrote: nothing more to read (its events are the table's and the tree's)
  const [states, processes] =
    objects.length === 0
      ? [[], []]
      : await Promise.all([readToolCallStates(side, run), readProcessCounts(connection, run)]);
  const hooks = objects.map((row) => ({ row, body: JSON.parse(row.body) as HookBody }));
  // a hook_content by the object it hangs under (its second parent) and its stream
  const contents = new Map<string, HookBody['payload']>();
  for (const { body } of hooks)
    if (body.kind === 'hook_content') contents.set(`${body.parents[1]}:${body.payload.stream}`, body.payload);
  const ordered = hooks
    .filter(({ body }) => body.kind !== 'hook_content')
    .sort((a, b) => a.body.payload.index - b.body.payload.index);
  const otherEvents = ordered.filter(
    ({ body }) => body.kind === 'hook_event' && !listedEvents.has(body.payload.event ?? ''),
  ).length;
  const stored = ordered.filter(
    ({ body }) => body.kind === 'tool_call' || listedEvents.has(body.payload.event ?? ''),
  );
  const shown = stored.slice(0, sessionBounds.items);
  const shownCalls = shown.flatMap(({ body }) =>
    body.kind === 'tool_call' ? [body.payload.tool_call_id!] : [],
  );

  const listed = await readListedEvents(connection, run, shownCalls, sessionBounds.events_per_tool_call, all);
  const judged = listed.filter((event) => event.judged).map((event) => event.id);
  // the texts each shown item names: a prompt's or message's (when kept), a tool call's input and result
  const textOf = (hash: string, stream: string): string | undefined =>
    contents.get(`${hash}:${stream}`)?.content_hash;
  const wanted = shown.flatMap(({ row }) =>
    ['prompt', 'assistant_message', 'tool_input', 'tool_result'].flatMap(
      (stream) => textOf(row.hash, stream) ?? [],
    ),
  );
  const [texts, decisions] = await Promise.all([
    readTexts(side, wanted, sessionBounds.text_chars),
    readEventDecisions(connection, judged),
  ]);
  const text = (hash: string, contentHash: string | undefined): SessionText => {
    const stored = contentHash === undefined ? undefined : texts.get(contentHash);
    if (stored === undefined) return { hash, text: null, cut: false };
    const cut = stored.length > sessionBounds.text_chars;
    return { hash, text: cut ? stored.slice(0, sessionBounds.text_chars) : stored, cut };
  };

  const stateOf = new Map(states.map((state) => [state.tool_call_id, state]));
  const byCall = groupBy(
    processes.filter((process) => process.tool_call_id !== null),
    (process) => process.tool_call_id!,
  );
  const eventsByCall = groupBy(listed, (event) => event.tool_call_id);
  const items = shown.map(({ row, body }): SessionItem => {
    const head = {
      time: formatRfc3339Nanos(row.created_ns),
      index: body.payload.index,
      agent: body.payload.agent ?? '',
      evidence_level: 'context_asserted' as const,
      object_hash: row.hash,
    };
    if (body.kind === 'hook_event') {
      const event = body.payload.event as SessionHookItem['event'];
      const hash = body.payload.prompt_hash ?? body.payload.assistant_message_hash;
      const stream = body.payload.prompt_hash !== undefined ? 'prompt' : 'assistant_message';
      return {
        item: 'hook_event',
        ...head,
        event,
        native_event: body.payload.native_event ?? '',
        text: hash === undefined ? null : text(hash, textOf(row.hash, stream)),
      };
    }
    const id = body.payload.tool_call_id!;
    const state = stateOf.get(id);
    const input = contents.get(`${row.hash}:tool_input`);
    const result = contents.get(`${row.hash}:tool_result`);
    const callProcesses = byCall.get(id) ?? [];
    const callEvents = eventsByCall.get(id) ?? [];
    const total = sum(callProcesses, (process) => process.events);
    const folded = sum(callProcesses, (process) => process.folded);
    const decision = body.payload.decision ?? null;
    return {
      item: 'tool_call',
      ...head,
      tool_call_id: id,
      tool_name: body.payload.tool_name ?? '',
      status: (state?.status ?? 'asserted') as ToolCallStatus,
      decision:
        decision === null
          ? null
          : {
              decision: decision.decision,
              rule_id: decision.rule_id,
              reason: decision.reason,
              answered: decision.answered,
            },
      input: text(input?.content_hash ?? '', input?.content_hash),
      result: result === undefined ? null : text(result.content_hash ?? '', result.content_hash),
      duration_ms: state?.duration_ms ?? result?.duration_ms ?? null,
      ended_at: state?.ended_at ?? null,
      ran: total > 0,
      counts: {
        events: total,
        loader_locale_opens: folded,
        omitted_events: total - (all ? 0 : folded) - callEvents.length,
      },
      processes: callProcesses.map((process) => processOf(process, callEvents, decisions)),
    } satisfies SessionToolCallItem;
  });

  const allCalls = stored
    .filter(({ body }) => body.kind === 'tool_call')
    .map(({ body }) => body.payload.tool_call_id!);
  const status = (id: string): string => stateOf.get(id)?.status ?? 'asserted';
  const attributed = processes.filter((process) => process.tool_call_id !== null);
  const counts: SessionCounts = {
    prompts: stored.filter(({ body }) => body.payload.event === 'user_prompt').length,
    tool_calls: {
      total: allCalls.length,
      allowed: allCalls.filter((id) => status(id) !== 'denied').length,
      denied: allCalls.filter((id) => status(id) === 'denied').length,
      failed: allCalls.filter((id) => status(id) === 'failed').length,
      completed: allCalls.filter((id) => status(id) === 'completed').length,
      no_result: allCalls.filter((id) => status(id) === 'asserted').length,
    },
    other_hook_events: otherEvents,
    events: sum(attributed, (process) => process.events),
    loader_locale_opens: sum(attributed, (process) => process.folded),
    unattributed_events: sum(
      processes.filter((process) => process.tool_call_id === null),
      (process) => process.events,
    ),
  };
  const answer: TimelineSession = {
    schema_version: 'provenance.timeline/v1',
    view: 'session',
    run_id: run,
    agent_session: hooks.length > 0,
    agents: [...new Set(ordered.map(({ body }) => body.payload.agent ?? ''))]
      .filter((agent) => agent !== '')
      .sort(),
    all,
    bounds: sessionBounds,
    counts,
    items,
    omitted_items: stored.length - shown.length,
  };
  return jsonText(answer);
}

/** A process of a tool call, with its listed events. */
function processOf(
  process: ProcessCountRow,
  callEvents: readonly ListedEventRow[],
  decisions: ReadonlyMap<string, { decision: string; rule_id: string }>,
): SessionProcess {
  const own = callEvents.filter((event) => event.tgid === process.tgid);
  return {
    tgid: process.tgid,
    ppid: process.ppid,
    comm: process.comm,
    argv: process.argv === null ? null : (JSON.parse(process.argv) as string[]),
    first_event: formatRfc3339Nanos(process.first_ns),
    link: {
      evidence_level: evidenceName(process.evidence_level),
      method: methodName(process.corr_method),
      confidence: process.corr_confidence,
    },
    events_total: Number(process.events),
    loader_locale_opens: Number(process.folded),
    events: own.map((event) => {
      const type = typeName(event.type);
      const attrs = JSON.parse(event.attrs) as EventAttrs;
      return {
        id: event.id,
        time: formatRfc3339Nanos(event.time_ns),
        type,
        evidence_level: evidenceName(event.evidence_level),
        summary: eventSummary(type, event.comm, event.tgid, attrs),
        object: eventObject(attrs),
        decision: decisions.get(event.id) ?? null,
        loader_locale: event.folded,
      };
    }),
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group === undefined) groups.set(key(item), [item]);
    else group.push(item);
  }
  return groups;
}

function sum<T>(items: readonly T[], count: (item: T) => bigint): number {
  return items.reduce((total, item) => total + Number(count(item)), 0);
}
