/**
 * An agent's hook event on the store thread, in one transaction, append-only: a tool call's
 * PreToolUse is its `tool_call` object (with the gate's decision) and a `hook_content` object of its
 * input; its PostToolUse a second `hook_content` object of its result, whose parent is the tool call's
 * (the first is never rewritten); every other event a `hook_event` object. Prompts and assistant
 * messages are named by their hash; their text is stored (as hook_content) only when the daemon
 * keeps hook text. The tool_calls row is the read model the views read: its status and record
 * follow the call (`denied`, `asserted` until its result, then `completed` or `failed`).
 */
import type { StoreConnection } from '../../store/store-connection.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import { execute, inTransaction, readRows, sql } from '../../store/sql.js';
import { WriterMemo } from '../../store/writer-memo.js';
import { ChainBatch, ensureRun, type ChainEntry } from '../graph-chains.sql.js';
import { insertArtifacts } from '../artifacts.sql.js';
import { sha256 } from '../graph-object.js';
import type { RecordedToolCall, ToolCallStatus } from '../record/record-answer.js';
import type { HookDecision } from './hook-decision.js';
import type { RecordToolCallDecision } from './tool-call-decision.js';

/** A text the hook carried (prompt, assistant message): its hash always, its bytes when kept. */
export interface HookText {
  field: 'prompt' | 'assistant_message';
  text: string;
}

/** A hook event to store, as the hooks route built it. */
export interface HookWrite {
  run_id: string;
  agent: string;
  kind: string;
  native_event: string;
  session_id: string;
  cwd: string | null;
  received_ns: string;
  /** The agent's own tool-call id, when it gives one. */
  tool_use_id: string | null;
  /** For agents without ids: the key calls of one tool and input share (numbered here). */
  tool_call_key: string | null;
  tool_name: string | null;
  /** The tool's input, canonical JSON. */
  input_json: string | null;
  /** The tool's result, canonical JSON. */
  result_json: string | null;
  duration_ms: number | null;
  failed: boolean;
  decision: HookDecision | null;
  /** The payload as sent, with prompt and message texts left out (named by hash instead). */
  payload: Record<string, unknown>;
  texts: HookText[];
  keep_text: boolean;
}

/** What the write stored. */
export interface HookWritten {
  /** The tool call's id (the agent's, or the numbered key), for tool events. */
  tool_call_id: string | null;
  object_hash: string;
  /** False for a PostToolUse whose PreToolUse was never stored (hooks installed mid-session). */
  pre_tool_use_seen: boolean | null;
  /** True when the batch it came in failed and it was stored again alone (hook-batcher.ts). */
  stored_alone?: true;
}

/** A hook event stored, and since when its tool call's events may be tied to it (its PreToolUse's time). */
export interface HookStored {
  written: HookWritten;
  /** The tool call's window start, for tool events; null for others. */
  since_ns: bigint | null;
}

/**
 * Stores hook events in order, in one transaction: a later event of the batch reads what an earlier
 * one wrote (a PostToolUse its PreToolUse). Their objects, contents and chain heads are inserted
 * once, at the end (ChainBatch). A PreToolUse's decision is also handed to `recordDecision` in the
 * same transaction (where the policy's decisions are read). Call inside the write queue; one that
 * fails rolls back them all.
 */
export async function writeHookEvents(
  connection: StoreConnection,
  writes: readonly HookWrite[],
  recordDecision: RecordToolCallDecision,
): Promise<HookStored[]> {
  return inTransaction(connection, async () => {
    const tx: HookTx = {
      connection,
      chains: new ChainBatch(connection),
      contents: new Map(),
      recordDecision,
    };
    const stored: HookStored[] = [];
    for (const write of writes) {
      const receivedNs = BigInt(write.received_ns);
      await ensureRun(connection, write.run_id, receivedNs);
      if (write.kind === 'pre_tool_use') stored.push(await preToolUse(tx, write, receivedNs));
      else if (write.kind === 'post_tool_use') stored.push(await postToolUse(tx, write, receivedNs));
      else stored.push({ written: await otherEvent(tx, write), since_ns: null });
    }
    await insertArtifacts(
      connection,
      [...tx.contents].map(([hash, content]) => ({ hash, content, size: content.length, truncated: false })),
    );
    await tx.chains.flush();
    return stored;
  });
}

/** One transaction's writes: its connection, the objects it appends and the contents it stores. */
interface HookTx {
  connection: StoreConnection;
  chains: ChainBatch;
  /** Contents to insert into artifacts, by hash. */
  contents: Map<string, Buffer>;
  /** Stores a PreToolUse's decision where the policy's decisions are read (the security domain's). */
  recordDecision: RecordToolCallDecision;
}

async function preToolUse(tx: HookTx, write: HookWrite, ns: bigint): Promise<HookStored> {
  const denied = write.decision !== null && write.decision.answered !== 'allow';
  const started = await startToolCall(tx, write, ns, true, denied ? 'denied' : 'asserted');
  if (write.decision !== null)
    await tx.recordDecision(tx.connection, {
      run_id: write.run_id,
      tool_call_id: started.toolCallId,
      object_hash: started.toolCallHash,
      decision: write.decision,
      decided_ns: ns,
    });
  return {
    written: { tool_call_id: started.toolCallId, object_hash: started.toolCallHash, pre_tool_use_seen: true },
    since_ns: ns,
  };
}

/**
 * Appends a tool call's object and its input, and inserts its row: at its PreToolUse (`seen`), or at
 * a PostToolUse whose PreToolUse never came. A denied call ends as it starts.
 */
async function startToolCall(
  tx: HookTx,
  write: HookWrite,
  ns: bigint,
  seen: boolean,
  status: ToolCallStatus,
): Promise<{ toolCallId: string; toolCallHash: string }> {
  const toolCallId = write.tool_use_id ?? (await nextKeyedId(tx.connection, write));
  const toolCallHash = await appendToolCall(tx, write, toolCallId, seen);
  await appendContent(tx, write, toolCallHash, toolCallId, 'tool_input', write.input_json ?? '{}', {});
  const record = toolCallRecord(write, toolCallId, toolCallHash, status, ns);
  await execute(
    tx.connection,
    sql`INSERT INTO tool_calls VALUES (${write.run_id}, ${toolCallId}, ${status}, ${JSON.stringify(record)},
        ${toolCallHash}, ${ns}, ${status === 'denied' ? ns : null})`,
  );
  keptCalls.set(tx.connection, `${write.run_id}\u0000${toolCallId}`, {
    tool_call_id: toolCallId,
    object_hash: toolCallHash,
    started_ns: ns,
  });
  return { toolCallId, toolCallHash };
}

async function postToolUse(tx: HookTx, write: HookWrite, ns: bigint): Promise<HookStored> {
  const found = await openToolCall(tx.connection, write);
  let toolCallId: string;
  let toolCallHash: string;
  if (found === null) {
    // stored all the same, and said to lack its PreToolUse (the hook may have come mid-session)
    ({ toolCallId, toolCallHash } = await startToolCall(tx, write, ns, false, 'asserted'));
  } else {
    toolCallId = found.tool_call_id;
    toolCallHash = found.object_hash;
  }
  const resultHash = await appendContent(
    tx,
    write,
    toolCallHash,
    toolCallId,
    'tool_result',
    write.result_json ?? 'null',
    { duration_ms: write.duration_ms, failed: write.failed, native_event: write.native_event },
  );
  const status = write.failed ? 'failed' : 'completed';
  const update = JSON.stringify({ status, ended_at: formatRfc3339Nanos(ns), duration_ms: write.duration_ms });
  await execute(
    tx.connection,
    sql`UPDATE tool_calls SET status = ${status}, ended_ns = ${ns}, record = json_merge_patch(record, ${update})
        WHERE run_id = ${write.run_id} AND tool_call_id = ${toolCallId} AND status <> 'denied'`,
  );
  return {
    written: { tool_call_id: toolCallId, object_hash: resultHash, pre_tool_use_seen: found !== null },
    since_ns: found?.started_ns ?? ns,
  };
}

async function otherEvent(tx: HookTx, write: HookWrite): Promise<HookWritten> {
  const hashes = Object.fromEntries(write.texts.map(({ field, text }) => [`${field}_hash`, sha256(text)]));
  const [object] = await tx.chains.append([
    entry(write.run_id, (previous, index) => ({
      kind: 'hook_event',
      run_id: write.run_id,
      parents: [previous],
      payload: {
        index,
        agent: write.agent,
        event: write.kind,
        native_event: write.native_event,
        session_id: write.session_id,
        evidence_level: 'context_asserted',
        hook_payload: write.payload,
        ...hashes,
      },
    })),
  ]);
  if (write.keep_text)
    for (const { field, text } of write.texts)
      await appendContent(tx, write, object!.hash, null, field, text, {});
  return { tool_call_id: null, object_hash: object!.hash, pre_tool_use_seen: null };
}

/** The tool_call object: what the agent asked to run, and the gate's decision on it. */
async function appendToolCall(
  tx: HookTx,
  write: HookWrite,
  toolCallId: string,
  preSeen: boolean,
): Promise<string> {
  const [toolCall] = await tx.chains.append([
    entry(write.run_id, (previous, index) => ({
      kind: 'tool_call',
      run_id: write.run_id,
      parents: [previous],
      payload: {
        index,
        tool_call_id: toolCallId,
        source: 'hook',
        agent: write.agent,
        session_id: write.session_id,
        tool_name: write.tool_name,
        cwd: write.cwd,
        input_hash: sha256(write.input_json ?? '{}'),
        evidence_level: 'context_asserted',
        pre_tool_use_seen: preSeen,
        decision: write.decision,
        hook_payload: write.payload,
      },
    })),
  ]);
  return toolCall!.hash;
}

/** Keeps `text` for artifacts and appends its `hook_content` object under `parent`; returns the object's hash. */
async function appendContent(
  tx: HookTx,
  write: HookWrite,
  parent: string,
  toolCallId: string | null,
  stream: string,
  text: string,
  extra: Record<string, unknown>,
): Promise<string> {
  const bytes = Buffer.from(text, 'utf8');
  const contentHash = sha256(bytes);
  tx.contents.set(contentHash, bytes);
  const [object] = await tx.chains.append([
    entry(write.run_id, (previous, index) => ({
      kind: 'hook_content',
      run_id: write.run_id,
      parents: [previous, parent],
      payload: {
        index,
        tool_call_id: toolCallId,
        stream,
        content_hash: contentHash,
        size: bytes.length,
        stored_bytes: bytes.length,
        truncated: false,
        media_type: stream === 'tool_input' || stream === 'tool_result' ? 'application/json' : 'text/plain',
        ...extra,
      },
    })),
  ]);
  return object!.hash;
}

interface OpenToolCall {
  tool_call_id: string;
  object_hash: string;
  started_ns: bigint;
}

/**
 * The tool calls this writer stored lately, by `run \0 id`: their object and start never change, and
 * a PostToolUse read them back each time. Forgotten on rollback (WriterMemo); at most 10,000.
 */
const keptCalls = new WriterMemo<OpenToolCall>(10_000);

/** The tool call a PostToolUse ends: by the agent's id, else the oldest call of its key still without a result. */
async function openToolCall(connection: StoreConnection, write: HookWrite): Promise<OpenToolCall | null> {
  const kept =
    write.tool_use_id === null
      ? undefined
      : keptCalls.get(connection, `${write.run_id}\u0000${write.tool_use_id}`);
  if (kept !== undefined) return kept;
  const rows =
    write.tool_use_id !== null
      ? await readRows<OpenToolCall>(
          connection,
          sql`SELECT tool_call_id, object_hash, started_ns FROM tool_calls
              WHERE run_id = ${write.run_id} AND tool_call_id = ${write.tool_use_id}`,
        )
      : await readRows<OpenToolCall>(
          connection,
          sql`SELECT tool_call_id, object_hash, started_ns FROM tool_calls
              WHERE run_id = ${write.run_id} AND starts_with(tool_call_id, ${`${write.tool_call_key}-`})
                AND status = 'asserted' ORDER BY started_ns, tool_call_id LIMIT 1`,
        );
  return rows[0] ?? null;
}

/** `<key>-<n>`: the n-th call of this tool and input in the run (hook-fields.ts toolCallKey). */
async function nextKeyedId(connection: StoreConnection, write: HookWrite): Promise<string> {
  const [row] = await readRows<{ n: bigint }>(
    connection,
    sql`SELECT count(*) AS n FROM tool_calls
        WHERE run_id = ${write.run_id} AND starts_with(tool_call_id, ${`${write.tool_call_key}-`})`,
  );
  return `${write.tool_call_key}-${row!.n + 1n}`;
}

/**
 * The tool_calls row's record: exactly the fields of a recorded tool call the views read
 * (RecordedToolCall), none claiming what provd never saw; what is the hook's own (the agent, the
 * decision, whether its PreToolUse came) is in its objects.
 */
function toolCallRecord(
  write: HookWrite,
  toolCallId: string,
  objectHash: string,
  status: ToolCallStatus,
  ns: bigint,
): RecordedToolCall {
  return {
    tool_call_id: toolCallId,
    status,
    executed: false,
    command: write.tool_name ?? '',
    args: [],
    cwd: write.cwd ?? '',
    started_at: formatRfc3339Nanos(ns),
    ended_at: status === 'denied' ? formatRfc3339Nanos(ns) : null,
    duration_ms: null,
    pid: null,
    exit_code: null,
    signal: null,
    error: null,
    binding_id: null,
    object_hash: objectHash,
  } satisfies RecordedToolCall;
}

function entry(runId: string, build: ChainEntry['build']): ChainEntry {
  return { runId, chain: 'context', build };
}
