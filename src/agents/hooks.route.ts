/**
 * POST /v1/hooks/{agent} (claude, codex, gemini): an agent's hook payload as it sends it, read by
 * the agent's folder, answered in the agent's own JSON, stored as the run's context. A PreToolUse
 * is judged on the main thread's policy engine and answered before it is stored: no store round
 * trip stands between the hook and its answer. Its write is posted to the store right after the
 * answer is written (setImmediate: after this turn's callbacks and microtasks, where the answer is
 * sent, before the event loop reads the next request), so a later event of the session, which the
 * agent sends only once it has the answer, is stored after it. The handler takes its caller
 * (`{transport: 'http'}` here; the Unix socket passes its peer), so other transports reuse it.
 */
import typia from 'typia';
import { canonicalJson } from '../model/canonical-json.js';
import type { HookWrite, HookWritten } from '../provenance/hooks/hook-store.sql.js';
import type { ProvenanceKinds } from '../provenance/provenance-kinds.js';
import type { PolicyEngine } from '../security/policy/policy-engine.js';
import { blockThread } from '../shared/block-thread.js';
import type { StepTrace } from '../store/step-trace.js';
import { log } from '../shared/log.js';
import { illFormedField, isWellFormedText } from '../shared/well-formed.js';
import { ParamContract } from '../shared/http/param-contract.js';
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';
import { parseJsonObject } from '../shared/http/json-body.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { Identifier } from '../shared/schema/wire-types.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { agentHarnesses } from './agents.js';
import { isRefusal, type AgentHarness, type HookEvent, type HookReply } from './hook-event.js';
import { judgePreToolUse } from './hook-judge.js';
import type { HookAnswer } from './hook-answer.js';
import type { HookCaller, HookTrustGate, StoredCallerVerdict } from './hook-trust-gate.js';
import type { UnstoredHooks } from './unstored-hooks.js';

export type { HookCaller } from './hook-trust-gate.js';

/** What the hooks route needs. */
export interface HookDeps {
  store: QueryClient<ProvenanceKinds>;
  policy: PolicyEngine;
  /** Prompts and assistant messages stored as text too (`--keep-hook-text`); else by hash only. */
  keepText: boolean;
  /** Places each socket caller: the agent's hook, or a tool call's forgery (hook-trust-gate.ts). */
  trust: HookTrustGate;
  /** PreToolUse events whose write failed after their answer, written as their runs' gaps. */
  unstored: UnstoredHooks;
  /**
   * Stores what the sensor has read so far (Sensor.storePending): a SessionEnd seals its run after
   * it, so the agent's last events, which could otherwise linger 5 s for a shared commit, are in the
   * run's checkpoint.
   */
  storeSensorPending: () => Promise<void>;
  /**
   * Test fault only (PROVD_FAULT_HOOK_WRITE_STALL_MS, read at the daemon's start): the main thread
   * blocks this long after a PreToolUse's answer, before its write is built, as a daemon descheduled
   * under load; the tool runs meanwhile. 0 or absent: no stall.
   */
  writeStallMs?: number;
}

/** The query of POST /v1/hooks/{agent}. */
export interface HookQuery {
  /** The run the session's events go to; default the agent's session id. */
  run?: Identifier;
}

/** Reads the query of POST /v1/hooks/{agent} (400 invalid_argument naming what is wrong). */
export const hookQuery = new ParamContract<HookQuery>(
  typia.json.schema<HookQuery, '3.1'>(),
  typia.createValidate<HookQuery>(),
);

/** Hook events stored alone after the batch they came in failed (hook-batcher.ts; health's hooks.stored_alone). */
export const hookStoredAlone = { count: 0 };

const countStoredAlone = (written: HookWritten): HookWritten => {
  if (written.stored_alone === true) hookStoredAlone.count++;
  return written;
};

const writeDeadlineMs = 30_000;

/** A hook event read, its caller placed, judged (a PreToolUse), with the agent's answer: nothing stored yet. */
export interface AnsweredHook {
  event: HookEvent;
  runId: string;
  /** The socket caller's verdict, stored beside its payload (null: not a socket caller). */
  caller: StoredCallerVerdict | null;
  decision: HookWrite['decision'];
  reply: HttpReply;
}

/**
 * The part of a hook's handling before its answer: reads the payload, places its caller (the trust
 * gate refuses a forgery, and binds a session's first socket hook to its agent), judges a
 * PreToolUse and builds the agent's answer; refused with the error reply to send. Stores nothing.
 * `trace` (the hook socket's, with PROVD_TRACE_STEPS) gets the caller's placing (`trust`) and the
 * policy's judgement (`judge`) as steps.
 */
export function answerHook(
  deps: Pick<HookDeps, 'policy' | 'trust'>,
  harness: AgentHarness,
  caller: HookCaller,
  body: Uint8Array | undefined,
  run: string | undefined,
  trace?: StepTrace,
): AnsweredHook | { refused: HttpReply } {
  const payload = parseJsonObject(body);
  // a lone surrogate has no UTF-8 form: its id or text would be stored as U+FFFD (two ids as one),
  // and its escape in a stored input fails DuckDB's JSON reads of the run (every tie pass of it)
  const illFormed =
    illFormedField(payload, '') ?? (run !== undefined && !isWellFormedText(run) ? 'run' : null);
  if (illFormed !== null)
    return {
      refused: errorReply(
        'invalid_argument',
        `${harness.name} hook payload: ${illFormed} holds an unpaired UTF-16 surrogate, which no store keeps as sent`,
      ),
    };
  const event = harness.read(payload);
  if (isRefusal(event))
    return { refused: errorReply('invalid_argument', `${harness.name} hook payload: ${event.message}`) };
  const runId = run ?? event.session_id;
  const admitting = performance.now();
  const admission = deps.trust.admit(caller, event, runId, trace);
  const judging = performance.now();
  trace?.record('trust', judging - admitting);
  if ('refused' in admission) return admission;
  const decision = event.kind !== 'pre_tool_use' ? null : decide(deps, event, caller);
  if (decision !== null) trace?.record('judge', performance.now() - judging);
  const verdict: HookReply = {
    verdict: decision === null ? null : (decision.answered as HookReply['verdict']),
    reason: decision?.reason ?? null,
  };
  const answer: HookAnswer = harness.answer(event, verdict);
  const reply: HttpReply = {
    status: 200,
    body: JSON.stringify(answer),
    headers: { 'provenance-schema': 'provenance.hook/v1' },
  };
  return { event, runId, caller: admission.caller, decision, reply };
}

/**
 * Handles one hook event from `caller`: reads, judges (PreToolUse), answers (answerHook), stores.
 * `trace`: answerHook's.
 */
export async function handleHook(
  deps: HookDeps,
  harness: AgentHarness,
  caller: HookCaller,
  body: Uint8Array | undefined,
  run: string | undefined,
  trace?: StepTrace,
): Promise<HttpReply> {
  // when the hook came: a PreToolUse's window starts here, before its answer lets the tool run
  // (the write is built after the answer, and the tool's first exec must fall inside the window)
  const receivedNs = String(BigInt(Date.now()) * 1_000_000n);
  const answered = answerHook(deps, harness, caller, body, run, trace);
  if ('refused' in answered) return answered.refused;
  const { event, runId, decision, reply: reply200 } = answered;
  // async: a write that fails to build rejects like one the store refuses, never throws in a timer
  const store = async (): Promise<HookWritten> => {
    const written = await deps.store.queryJson(
      'hook',
      hookWrite(deps, event, runId, decision, caller, answered.caller, receivedNs),
      {
        deadlineMs: writeDeadlineMs,
        verdictMs: writeDeadlineMs,
      },
    );
    // the store takes writes again: the gaps of calls it failed before are written now
    if (deps.unstored.unwrittenRuns > 0) void deps.unstored.write();
    return written;
  };
  if (event.kind === 'pre_tool_use' && caller.transport !== 'spool') {
    // answered now; the write is built and posted behind the answer, and a failure is logged and
    // recorded as a gap of its run (the spool's reader waits for its writes instead)
    setImmediate(() => {
      if ((deps.writeStallMs ?? 0) > 0) blockThread(deps.writeStallMs!);
      void store()
        .then(countStoredAlone)
        .catch((error: unknown) => {
          deps.unstored.add(runId, receivedNs, event.tool_use_id ?? event.tool_call_key, error);
          log('warn', 'storing a hook event failed after its answer', {
            agent: harness.name,
            run_id: runId,
            error: String(error),
          });
        });
    });
    return reply200;
  }
  if (event.kind === 'session_end') await deps.storeSensorPending();
  const written: HookWritten = countStoredAlone(await store());
  if (written.pre_tool_use_seen === false)
    log('info', 'a PostToolUse without its PreToolUse was stored', {
      agent: harness.name,
      tool_call_id: written.tool_call_id,
    });
  return reply200;
}

/**
 * The policy's decision; for a spooled PreToolUse, what the client answered without the daemon
 * (the policy never saw the call, and the record says so).
 */
function decide(deps: Pick<HookDeps, 'policy'>, event: HookEvent, caller: HookCaller): HookWrite['decision'] {
  if (caller.transport !== 'spool') return judgePreToolUse(deps.policy, event);
  return {
    decision: caller.answered,
    rule_id: 'hooks.on_daemon_down',
    reason: `the daemon was down; the hook client answered ${caller.answered} by hooks.on_daemon_down`,
    severity: caller.answered === 'deny' ? 'medium' : 'info',
    advisory: null,
    policy: deps.policy.policy.source,
    answered: caller.answered,
  };
}

/** What the payload keeps of its caller: the transport, and the peer or the spool's owner. */
function callerFields(caller: HookCaller): Record<string, unknown> {
  if (caller.transport === 'socket')
    return { provd_transport: 'socket', provd_peer: { pid: caller.pid, uid: caller.uid, gid: caller.gid } };
  if (caller.transport === 'spool')
    return { provd_transport: 'spool', provd_spool: { uid: caller.uid, answered: caller.answered } };
  return { provd_transport: caller.transport };
}

function hookWrite(
  deps: HookDeps,
  event: HookEvent,
  runId: string,
  decision: HookWrite['decision'],
  caller: HookCaller,
  verdict: StoredCallerVerdict | null,
  receivedNs: string,
): HookWrite {
  const texts: HookWrite['texts'] = [];
  if (event.prompt !== null) texts.push({ field: 'prompt', text: event.prompt });
  if (event.assistant_message !== null)
    texts.push({ field: 'assistant_message', text: event.assistant_message });
  // the payload is kept whole but for the texts, which are named by hash (and kept as text only when asked)
  const payload = { ...event.payload };
  for (const field of ['prompt', 'last_assistant_message', 'prompt_response']) delete payload[field];
  return {
    run_id: runId,
    agent: event.agent,
    kind: event.kind,
    native_event: event.native_event,
    session_id: event.session_id,
    cwd: event.cwd,
    received_ns: caller.transport === 'spool' ? caller.spooled_ns : receivedNs,
    tool_use_id: event.tool_use_id,
    tool_call_key: event.tool_call_key,
    tool_name: event.tool_name,
    input_json: event.tool_input === null ? null : canonicalJson(event.tool_input),
    result_json: event.kind === 'post_tool_use' ? canonicalJson(event.tool_response ?? null) : null,
    duration_ms: event.duration_ms,
    failed: event.failed,
    decision,
    // a socket caller's payload carries its verdict too
    payload: { ...payload, ...callerFields(caller), ...(verdict === null ? {} : { provd_caller: verdict }) },
    texts,
    keep_text: deps.keepText,
  };
}

function hookEndpoint(harness: AgentHarness): Endpoint<{ hooks: HookDeps }> {
  return {
    method: 'POST',
    path: `/v1/hooks/${harness.name}`,
    operationId: `hook_${harness.name}`,
    summary: `One ${harness.name} hook event: stored as context; a PreToolUse is judged and answered`,
    description:
      `The body is the payload ${harness.name}'s hook sends, as it sends it. The answer is the JSON the agent's hook ` +
      "reads (docs/agents.md): `{}` lets the call go on; a denied PreToolUse is answered in the agent's own deny shape " +
      "with the policy's reason. The header Provenance-Schema says provenance.hook/v1. Each event is stored in the run " +
      'named by `run`, else the session id; SessionEnd seals it with a checkpoint.',
    schema: 'hook',
    answerType: () => typia.json.schemas<[HookAnswer], '3.1'>(),
    query: hookQuery.parameters,
    body: 'application/json',
    bodyType: harness.payloadType,
    handler:
      ({ hooks }) =>
      (request) =>
        handleHook(hooks, harness, { transport: 'http' }, request.body, hookQuery.parse(request.query).run),
  };
}

/** POST /v1/hooks/claude, /v1/hooks/codex, /v1/hooks/gemini: one endpoint per agent harness. */
export const hookEndpoints = agentHarnesses.map(hookEndpoint);
