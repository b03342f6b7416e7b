/**
 * POST /v1/record on the main thread. With `execute` it runs the command itself: a snapshot of
 * cwd, a fresh cgroup bound `control_plane` to the tool call before the command starts (so every
 * runtime event of its tree attributes to it), the run, a second snapshot, and one store write of
 * the tool call, its output artifacts and its file effects. With execute:false it stores the tool
 * call as `asserted` and runs nothing. Executing needs a daemon token: without one, any local user
 * or web page that reaches the loopback port could run commands as the daemon's user.
 */
import { stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { errorReply, jsonReply, type HttpReply } from '../../shared/http/http-reply.js';
import { parseJsonObject } from '../../shared/http/json-body.js';
import type { Endpoint } from '../../shared/http/endpoint.js';
import type { RouteHandler } from '../../shared/http/route.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import type { ProvenanceKinds } from '../provenance-kinds.js';
import type { RecordCgroupRoot } from './cgroup-root.js';
import { CommandCgroup } from './command-cgroup.js';
import { commandUser, type CommandUser, type CommandUserPolicy } from './command-user.js';
import { findProgram } from './command-path.js';
import { cwdEffects, snapshotCwd, type TakeSnapshot } from './cwd-snapshot.js';
import type { KillTarget, KillWatch, PolicyKill } from './kill-watch.js';
import type { RecordAnswer, RecordArtifact, RecordCgroupReport } from './record-answer.js';
import { asserted, executed, notStarted, type Pending } from './record-pending.js';
import { isRecordRefusal, parseRecordRequest, type RecordPlan } from './record-request.js';
import type { RecordWritten } from './record-store.sql.js';
import { runCommand } from './run-command.js';
import { LiveOutput } from './live-output.js';
import { startingUmask } from '../../shared/private-files.js';
import typia from 'typia';
import type { RecordRequest } from './record-request.js';
import { recordContract } from './record.contract.js';

/** Attributes a recorded command's runtime events to its tool call: by cgroup, else by root pid. */
export type RecordBinder = (scope: {
  runId: string;
  toolCallId: string;
  cgroupId: string | null;
  rootPid: number | null;
  startedNs: bigint;
}) => Promise<string>;

/** What the record route needs. */
export interface RecordDeps {
  store: QueryClient<ProvenanceKinds>;
  bind: RecordBinder;
  cgroupRoot: RecordCgroupRoot;
  /** Whether the daemon checks a bearer token (executing is refused otherwise). */
  authConfigured: boolean;
  /** cwd of a request that names none. */
  defaultCwd: string;
  /** Stops the command when the policy decides `kill` on one of its events. */
  watchKills: KillWatch;
  /** Whom commands run as (command-user.ts). */
  users: CommandUserPolicy;
  /** Takes a snapshot of a cwd off the thread and the pool the store uses (snapshot-pool.ts). */
  snapshot: TakeSnapshot;
}

/** Commands recorded at once; more answer 429. */
export const maxConcurrentRecords = 16;
/** Bytes of each output stream kept as its artifact. */
export const maxOutputBytes = 1024 * 1024;
/** The PATH of a recorded command: the system's directories only, nothing inherited. */
export const recordPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const writeDeadlineMs = 30_000;

/**
 * What a process a binding covers may record over HTTP: what record_tool_call sends, execute:false,
 * stored as `asserted`; running a command of its own choosing outside its binding is not.
 */
function watchedRecord(body: Record<string, unknown>): string | null {
  if (body['execute'] === false) return null;
  return 'it may only assert a tool call (execute: false, stored as asserted), as the record_tool_call tool does';
}

/** POST /v1/record: its parts are composed by the daemon (`record`). */
export const recordEndpoint: Endpoint<{ record: RecordDeps }> = {
  ...recordContract,
  summary: 'Record (and by default execute) a tool call',
  body: 'application/json',
  bodyType: () => typia.json.schemas<[RecordRequest], '3.1'>(),
  errors: ['409', '429'],
  watched: watchedRecord,
  headers: [
    {
      name: 'accept',
      in: 'header',
      required: false,
      description:
        'application/x-ndjson: a 200 answer streamed while the command runs, one line per output chunk ' +
        '({"stream":"stdout"|"stderr","data":"..."}), then {"record":{...},"live_output_dropped_bytes":N} ' +
        '(or a provenance.error/v1 body if storing failed). Errors found before the command starts keep ' +
        'their JSON answers. Anything else: the JSON record once the command ends.',
      schema: { type: 'string' },
    },
  ],
  handler: ({ record }) => recordRoute(record),
};

/** Answers `provenance.record/v1`. */
function recordRoute(deps: RecordDeps): RouteHandler {
  /** The run and tool call ids of every record being made, executed or asserted. */
  const claimed = new Set<string>();
  let executing = 0;
  return async (request) => {
    const plan = parseRecordRequest(parseJsonObject(request.body), deps.defaultCwd);
    if (isRecordRefusal(plan)) return errorReply('invalid_argument', plan.message);
    if (plan.execute && !deps.authConfigured)
      return errorReply(
        'forbidden',
        'executing a command needs the daemon to run with --auth-token (or PROVD_AUTH_TOKEN): without one, ' +
          'any local user or web page reaching its port could run commands as the daemon; execute:false needs no token',
      );
    if (plan.execute && executing >= maxConcurrentRecords)
      return errorReply('backpressure', `${maxConcurrentRecords} recorded commands are running; retry later`);
    // The ids are claimed before anything runs or is stored: a second record of them while this one
    // is made (an agent's execute:false beside the harness's real command) is refused, not the first.
    const key = `${plan.runId}\u0000${plan.toolCallId}`;
    if (claimed.has(key))
      return errorReply(
        'tool_call_exists',
        `tool call "${plan.toolCallId}" of run "${plan.runId}" is being recorded`,
      );
    claimed.add(key);
    if (plan.execute) executing++;
    try {
      const live = LiveOutput.opener(request);
      return plan.execute ? await execute(deps, plan, live) : await store(deps, asserted(plan), null);
    } finally {
      claimed.delete(key);
      if (plan.execute) executing--;
    }
  };
}

async function execute(
  deps: RecordDeps,
  plan: RecordPlan,
  openLive: (() => LiveOutput) | null,
): Promise<HttpReply> {
  const cwdProblem = await stat(plan.cwd).then(
    (stats) => (stats.isDirectory() ? null : 'is not a directory'),
    (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code})`,
  );
  if (cwdProblem !== null) return errorReply('invalid_argument', `cwd "${plan.cwd}" ${cwdProblem}`);
  const runAs = await commandUser(deps.users, plan.cwd);
  if ('refused' in runAs) return errorReply('forbidden', runAs.refused);
  const program = await findProgram(plan.command, recordPath, plan.cwd);
  await deps.store.queryJson(
    'recordFree',
    { run: plan.runId, toolCall: plan.toolCallId },
    { deadlineMs: 5000 },
  );
  if ('error' in program) return store(deps, notStarted(plan, program.error), null);
  const before = await snapshotCwd(deps.snapshot, plan.cwd, runAs.user, recordPath);
  const { cgroupRoot } = deps;
  const cgroup =
    cgroupRoot.status === 'ok' ? await CommandCgroup.create(cgroupRoot.path, plan.toolCallId) : null;
  const watching: { end: (() => Promise<PolicyKill | null>) | null } = { end: null };
  try {
    const scope = {
      runId: plan.runId,
      toolCallId: plan.toolCallId,
      startedNs: BigInt(Date.now()) * 1_000_000n,
    };
    // with a cgroup, bound (and watched for kill decisions) before the command exists; without,
    // by its pid as soon as it has one
    let binding: Promise<string> | null =
      cgroup === null ? null : deps.bind({ ...scope, cgroupId: cgroup.id, rootPid: null });
    const watch = (bindingId: string, target: KillTarget): void => {
      watching.end = deps.watchKills({ bindingId, runId: plan.runId, toolCallId: plan.toolCallId }, target);
    };
    if (cgroup !== null) watch(await binding!, cgroupTarget(cgroup));
    // from here on the answer is 200 whatever happens; a client that leaves does not stop the
    // command: it runs to its end (or timeout) and is recorded all the same
    const live = openLive?.() ?? null;
    const outcome = await runCommand({
      command: program.path,
      args: plan.args,
      cwd: plan.cwd,
      env: commandEnv(plan, runAs.user),
      timeoutMs: plan.timeoutMs,
      maxOutputBytes,
      cgroup,
      user: runAs.user,
      umask: startingUmask(),
      ...(live !== null && { onOutput: (stream, chunk) => live.output(stream, chunk) }),
      onStart: (pid) => {
        if (binding !== null) return;
        binding = deps.bind({ ...scope, cgroupId: null, rootPid: pid });
        // awaited once the command ends; until then a failure must not count as unhandled
        binding.then((bindingId) => watch(bindingId, processGroupTarget(pid))).catch(() => undefined);
      },
    });
    const bindingId = binding === null ? null : await binding;
    const policyKill = (await watching.end?.()) ?? null;
    const { effects, ignore } = cwdEffects(
      before,
      await snapshotCwd(deps.snapshot, plan.cwd, runAs.user, recordPath),
    );
    const removed = cgroup === null ? null : await cgroup.remove();
    const report: RecordCgroupReport =
      cgroup === null
        ? {
            status: 'unavailable',
            path: null,
            id: null,
            removed: null,
            message: unavailableMessage(cgroupRoot),
          }
        : { status: 'used', path: cgroup.path, id: cgroup.id, removed, message: null };
    const ranAs = runAs.user ?? daemonUser();
    const found = { ...effects, ignore };
    return store(deps, executed(plan, outcome, found, report, bindingId, policyKill, ranAs), live);
  } catch (error) {
    await watching.end?.();
    await cgroup?.remove();
    throw error;
  }
}

/** The daemon's own user, whom commands run as when it is not root. */
function daemonUser(): { uid: number; name: string } {
  const uid = process.getuid?.() ?? -1;
  try {
    return { uid, name: userInfo().username };
  } catch {
    return { uid, name: String(uid) }; // a uid without a passwd entry
  }
}

/** The command's own cgroup: every process of its tree. */
function cgroupTarget(cgroup: CommandCgroup): KillTarget {
  return { kind: 'cgroup', id: cgroup.id, kill: () => cgroup.killAll() };
}

/** Without a cgroup, the command's process group (it runs detached, so its group is its pid). */
function processGroupTarget(pid: number): KillTarget {
  return {
    kind: 'process_group',
    id: String(pid),
    kill: () => {
      try {
        process.kill(-pid, 'SIGKILL');
        return Promise.resolve(null);
      } catch {
        return Promise.resolve(0); // the group is gone
      }
    },
  };
}

/** The minimal environment: a fixed PATH, its user's HOME, UTF-8, and the ids of the call. */
function commandEnv(plan: RecordPlan, user: CommandUser | null): Record<string, string> {
  return {
    PATH: recordPath,
    HOME: user?.home ?? process.env['HOME'] ?? '/',
    LANG: 'C.UTF-8',
    PROVD_RUN_ID: plan.runId,
    PROVD_TOOL_CALL_ID: plan.toolCallId,
  };
}

function unavailableMessage(root: RecordCgroupRoot): string {
  return root.status === 'unavailable'
    ? `${root.message}; ran without a cgroup, bound by its root pid`
    : 'ran without a cgroup';
}

async function store(deps: RecordDeps, pending: Pending, live: LiveOutput | null): Promise<HttpReply> {
  const written: RecordWritten = await deps.store.queryJson('record', pending.write, {
    deadlineMs: writeDeadlineMs,
    verdictMs: writeDeadlineMs,
  });
  const artifact = (index: number): RecordArtifact | null => {
    const output = pending.outputs[index];
    const stored = written.outputs[index];
    if (output === undefined || stored === undefined) return null;
    return {
      hash: stored.hash,
      object_hash: stored.objectHash,
      size: output.size,
      stored_bytes: output.content.length,
      truncated: output.truncated,
      stream_hash: output.streamHash,
      text: output.content.toString('utf8'),
    };
  };
  const answer: RecordAnswer = {
    ...pending.answer,
    stdout: artifact(0),
    stderr: artifact(1),
    file_effects: pending.write.effects.map((effect, i) => ({
      ...effect,
      object_hash: written.effectHashes[i]!,
    })),
    object_hash: written.toolCallHash,
  };
  return live === null ? jsonReply(200, answer) : live.end(answer);
}
