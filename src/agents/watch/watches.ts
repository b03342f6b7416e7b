/**
 * The agents being watched, in the daemon: a client (`provd watch`) asks, the daemon acts. Start:
 * the stub is checked (stub-check.ts), the run claimed, a cgroup made under `provd-watch`, bound
 * `control_plane` to the run (so the sensor's filter holds it), and only then is the stub moved in;
 * the stub execs the agent once the client has this answer. End: the client says how the agent
 * exited; what the sensor read so far is stored, then the end, and the run is sealed. Processes it
 * left stay in the cgroup, bound and captured, and the cgroup is removed once it empties. A client
 * that never says (killed) is replaced by the cgroup emptying: the end is then stored without an
 * exit status, after a grace period for the client's own word.
 */
import { createHash } from 'node:crypto';
import { readdir, rmdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { sha256 } from '../../provenance/graph-object.js';
import type { ProvenanceKinds } from '../../provenance/provenance-kinds.js';
import type { RecordCgroupRoot } from '../../provenance/record/cgroup-root.js';
import { CommandCgroup } from '../../provenance/record/command-cgroup.js';
import type { WatchEndWrite } from '../../provenance/watch/watch-store.sql.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { errorReply, jsonReply, type HttpReply } from '../../shared/http/http-reply.js';
import { log } from '../../shared/log.js';
import { formatRfc3339Nanos } from '../../shared/rfc3339.js';
import type { QueryClient } from '../../shared/store-protocol.js';
import { storeBinding } from '../../telemetry/bind.route.js';
import { isBindRequestError, parseBindRequest } from '../../telemetry/binding.js';
import type { BindingLog } from '../../telemetry/binding-log.js';
import type { TelemetryKinds } from '../../telemetry/telemetry-kinds.js';
import { checkStub } from './stub-check.js';
import type { WatchAnswer, WatchEndAnswer } from './watch-answer.js';
import type { WatchEndRequest, WatchRequest } from './watch-request.js';

/** The tool call id of the agent's own binding (its tool calls' processes get their own). */
export const agentToolCallId = 'agent';

/** How often the cgroups of watches are looked at (one small read each). */
const pollMs = 1000;
/** How long an emptied cgroup waits for its client's end before the daemon ends the watch itself. */
const clientGraceMs = 10_000;
const writeDeadlineMs = 30_000;

/**
 * The cgroup, under the daemon's own, that holds the agents this daemon watches: one per data dir
 * (`provd-watch/<12 hex of its path's sha256>`), so that a daemon taking over what its data dir's
 * last daemon left never touches the cgroups of another daemon beside it (a fresh one is empty
 * until its agent is moved in, and would be removed as left over).
 */
export function watchCgroupName(dataDir: string): string {
  return `provd-watch/${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/** What watching needs from the daemon. */
export interface WatchDeps {
  store: QueryClient<ProvenanceKinds & TelemetryKinds>;
  bindingLog: BindingLog;
  /** The data dir's `provd-watch` cgroup under the daemon's (watchCgroupName), or why there is none. */
  cgroupRoot: RecordCgroupRoot;
  /**
   * Stores what the sensor has read so far (Sensor.storePending): a watch's end is sealed after
   * it, so the agent's last events, which could otherwise linger 5 s for a shared commit, are in
   * the run's checkpoint.
   */
  storeSensorPending: () => Promise<void>;
}

interface ActiveWatch {
  runId: string;
  nonce: string;
  command: string;
  cgroup: CommandCgroup;
  /** Set once the end is stored. */
  ended: boolean;
  /** When the cgroup was first seen empty (ms), before any end. */
  emptySince: number | null;
}

const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The watches of this daemon. */
export class Watches {
  private readonly active = new Map<string, ActiveWatch>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: WatchDeps) {}

  /** POST /v1/watch. */
  async start(request: WatchRequest): Promise<HttpReply> {
    const { cgroupRoot, store } = this.deps;
    if (cgroupRoot.status !== 'ok')
      return errorReply(
        'forbidden',
        `the daemon cannot make cgroups for watched agents: ${cgroupRoot.message}; the agent was not started`,
      );
    if (this.active.has(request.run_id))
      return errorReply('run_exists', `run "${request.run_id}" is being watched already`);
    const stub = await checkStub(request.pid, request.nonce);
    if ('refused' in stub) return errorReply('forbidden', `${stub.refused}; the agent was not started`);
    const [command, ...args] = stub.argv;
    const cgroup = await CommandCgroup.create(cgroupRoot.path, request.run_id);
    const { path: cgroupPath, id: cgroupId } = cgroup;
    const startedNs = nowNs();
    try {
      const binding = parseBindRequest(
        {
          run_id: request.run_id,
          tool_call_id: agentToolCallId,
          cgroup_id: cgroupId,
          started_at: formatRfc3339Nanos(startedNs),
          binding_source: 'control_plane',
        },
        startedNs,
      );
      if (isBindRequestError(binding)) throw new Error(`watch binding refused: ${binding.message}`);
      const { object_hash: objectHash } = await store.queryJson(
        'watchStart',
        {
          run_id: request.run_id,
          agent: request.agent ?? null,
          command: basename(command!),
          args_hash: sha256(canonicalJson(args)),
          args_count: args.length,
          uid: stub.uid,
          pid: stub.pid,
          cgroup_id: cgroupId,
          cgroup_path: cgroupPath,
          binding_id: binding.binding_id,
          started_ns: startedNs.toString(),
        },
        { deadlineMs: writeDeadlineMs, verdictMs: writeDeadlineMs },
      );
      // bound (and in the sensor's filter) before the stub is moved, so before the agent exists
      await storeBinding(store, this.deps.bindingLog, binding);
      const moved = await writeFile(join(cgroupPath, 'cgroup.procs'), String(stub.pid)).then(
        () => null,
        (error: Error) => error.message,
      );
      const watch: ActiveWatch = {
        runId: request.run_id,
        nonce: request.nonce,
        command: basename(command!),
        cgroup,
        ended: false,
        emptySince: null,
      };
      if (moved !== null) {
        await this.storeEnd(watch, { exit_code: null, signal: null }, 'not_started');
        await rmdir(cgroupPath).catch(() => undefined);
        return errorReply('forbidden', `cannot move process ${stub.pid} into ${cgroupPath}: ${moved}`);
      }
      this.active.set(request.run_id, watch);
      this.poll();
      const answer: WatchAnswer = {
        schema_version: 'provenance.watch/v1',
        run_id: request.run_id,
        agent: request.agent ?? null,
        command: watch.command,
        uid: stub.uid,
        pid: stub.pid,
        cgroup: { path: cgroupPath, id: cgroupId },
        binding: {
          binding_id: binding.binding_id,
          tool_call_id: agentToolCallId,
          binding_source: 'control_plane',
          method: 'cgroup',
          evidence_level: 'kernel_correlated',
        },
        started_at: formatRfc3339Nanos(startedNs),
        object_hash: objectHash,
      };
      return jsonReply(200, answer);
    } catch (error) {
      if (!this.active.has(request.run_id)) await rmdir(cgroupPath).catch(() => undefined);
      throw error;
    }
  }

  /** POST /v1/watch/end. */
  async end(request: WatchEndRequest): Promise<HttpReply> {
    const watch = this.active.get(request.run_id);
    if (watch === undefined || watch.ended || !sameNonce(watch.nonce, request.nonce))
      return errorReply('run_not_found', `run "${request.run_id}" has no watch of this client going on`);
    const { objectHash, processesLeft, endedNs } = await this.storeEnd(
      watch,
      { exit_code: request.exit_code ?? null, signal: request.signal ?? null },
      'client',
    );
    await this.removeIfEmpty(watch);
    const answer: WatchEndAnswer = {
      schema_version: 'provenance.watch_end/v1',
      run_id: watch.runId,
      ended_at: formatRfc3339Nanos(endedNs),
      processes_left: processesLeft,
      object_hash: objectHash,
    };
    return jsonReply(200, answer);
  }

  /**
   * Takes over the cgroups a daemon of this data dir left under its `provd-watch`: an empty one is
   * removed now, one whose agent still runs is removed once it empties (its binding is stored, so
   * what runs there is still captured; how the agent ended is not known, so no end is stored).
   */
  async adoptLeftCgroups(): Promise<number> {
    const { cgroupRoot } = this.deps;
    if (cgroupRoot.status !== 'ok') return 0;
    const entries = await readdir(cgroupRoot.path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.filter((dirent) => dirent.isDirectory())) {
      const cgroup = await CommandCgroup.open(join(cgroupRoot.path, entry.name));
      const key = `left:${entry.name}`;
      const left: ActiveWatch = { runId: key, nonce: '', command: '', cgroup, ended: true, emptySince: null };
      this.active.set(key, left);
      await this.removeIfEmpty(left);
    }
    if (this.active.size > 0) this.poll();
    return entries.length;
  }

  /** Stops looking at cgroups (the daemon is stopping); cgroups left are swept at the next start. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async storeEnd(
    watch: ActiveWatch,
    exit: { exit_code: number | null; signal: string | null },
    reportedBy: WatchEndWrite['reported_by'],
  ): Promise<{ objectHash: string; processesLeft: number; endedNs: bigint }> {
    watch.ended = true;
    await this.deps.storeSensorPending();
    const processesLeft = (await watch.cgroup.pids()).length;
    const endedNs = nowNs();
    const { object_hash: objectHash } = await this.deps.store.queryJson(
      'watchEnd',
      {
        run_id: watch.runId,
        command: watch.command,
        ...exit,
        processes_left: processesLeft,
        reported_by: reportedBy,
        ended_ns: endedNs.toString(),
      },
      { deadlineMs: writeDeadlineMs, verdictMs: writeDeadlineMs },
    );
    return { objectHash, processesLeft, endedNs };
  }

  private poll(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.sweep(), pollMs);
    this.timer.unref();
  }

  /** Removes emptied cgroups of ended watches; ends watches whose client never said, once empty. */
  private async sweep(): Promise<void> {
    for (const watch of [...this.active.values()]) {
      if (watch.ended) {
        await this.removeIfEmpty(watch);
        continue;
      }
      if ((await watch.cgroup.pids()).length > 0) continue;
      watch.emptySince ??= Date.now();
      // the client's end may have come while the cgroup was read
      if (watch.ended || Date.now() - watch.emptySince < clientGraceMs) continue;
      await this.storeEnd(watch, { exit_code: null, signal: null }, 'cgroup').catch((error: unknown) =>
        log('warn', 'storing the end of a watch failed', { run_id: watch.runId, error: String(error) }),
      );
      await this.removeIfEmpty(watch);
    }
    if (this.active.size === 0) this.stop();
  }

  private async removeIfEmpty(watch: ActiveWatch): Promise<void> {
    if ((await watch.cgroup.pids()).length > 0) return;
    // never CommandCgroup.remove(): it kills what is left, and a watched agent's leftovers may run on
    const removed = await rmdir(watch.cgroup.path).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    );
    if (removed) this.active.delete(watch.runId);
  }
}

function sameNonce(kept: string, given: string): boolean {
  return kept.length === given.length && sha256(kept) === sha256(given);
}
