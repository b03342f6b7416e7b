/**
 * The composition root: start order (store, then HTTP), signals, and stop order (stop accepting,
 * drain, checkpoint and close the store). Resolves with the process exit code.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Piscina } from 'piscina';
import { ProvdError, toErrorData } from '../shared/errors.js';
import { probeRecordCgroupRoot } from '../provenance/record/cgroup-root.js';
import { watchCgroupName, Watches } from '../agents/watch/watches.js';
import { removeSensorMark, writeSensorMark } from '../sensor/sensor-mark.js';
import { reportUncleanStop } from './unclean-stop.js';
import { ensureAttestationKey, ensureDefaultKey, loadSigningKey } from '../provenance/signing-key.js';
import { log } from '../shared/log.js';
import { batchHashing, mallocArenas } from '../provenance/batch-hash.js';
import { announcePoolThreads, announceThread } from '../shared/thread-id.js';
import type { QueryClient } from '../shared/store-protocol.js';
import { bindingFromJson } from '../telemetry/binding-json.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import { BindingLog } from '../telemetry/binding-log.js';
import { recordBinder } from '../telemetry/record-binding.js';
import { BearerAuth } from './bearer-auth.js';
import type { DaemonConfig } from './config.js';
import { defaultIngestLimits, IngestRouter } from '../ingest/ingest-router.js';
import { createNormalizePool } from '../ingest/normalize-pool.js';
import { Sensor } from '../sensor/sensor.js';
import type { HealthChecks } from './daemon-health.js';
import { hostResolversCheck, noSealingCheck, ReadinessCheck, recordCgroupCheck } from './readiness-check.js';
import { endpoints } from './endpoints.js';
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RouteDeps } from './route-deps.js';
import { openapiBytes } from './openapi.js';
import { hookSettingsOf, writeHookSettings } from '../agents/hook-settings-file.js';
import { HookTrustGate, hookTrustCheck } from '../agents/hook-trust-gate.js';
import { WatchedCallers } from './watched-callers.js';
import { hookStoredAlone } from '../agents/hooks.route.js';
import { UnstoredHooks } from '../agents/unstored-hooks.js';
import { storeBinding } from '../telemetry/bind.route.js';
import { AgentBinder } from '../telemetry/agent-binder.js';
import { defaultPolicy } from '../security/policy/default-policy.js';
import { PolicyEngine } from '../security/policy/policy-engine.js';
import { KillSwitch } from '../security/responses/kill-switch.js';
import { loadPolicyFile, PolicyFileError } from '../security/policy/policy-file.js';
import { readHostResolvers, type HostResolvers } from '../security/policy/host-resolvers.js';
import { HttpServer } from './http-server.js';
import { WebPages } from '../views/web/web-pages.js';
import { Router } from './router.js';
import { startStoreThread } from './store-thread.js';
import { SnapshotPool } from '../provenance/record/snapshot-pool.js';
import { secureDataDir } from './data-dir.js';
import { keepFilesPrivate } from '../shared/private-files.js';
import { hostAnchorFileName } from '../provenance/host/host-anchor.js';
import { loadUws } from './uws.js';
import { startHookTransport } from './hook-transport.js';
import { ensureHookSpoolDir } from '../agents/hook-spool.js';
import type { HookSocketServer } from './hook-socket-server.js';
import { OtlpForwarder } from '../views/otlp/otlp-forwarder.js';

const drainTimeoutMs = 10_000;

/**
 * Runs the daemon in the foreground until SIGINT/SIGTERM (exit 0) or a fatal failure (exit 1).
 * `adapters` are endpoints served beside the interface's that the daemon cannot import, as they
 * are clients of it (the MCP endpoint, whose tools are built from the endpoint list).
 */
export async function runDaemon(
  config: DaemonConfig,
  adapters: readonly Endpoint<RouteDeps>[] = [],
): Promise<number> {
  loadUws(); // refuse to start on the JS fallback before anything else happens
  announceThread('main');
  void announcePoolThreads();
  // Handlers go in before any step that takes time: a signal during startup still stops cleanly.
  const stopSignal = waitForSignal();
  keepFilesPrivate();
  secureDataDir(config.dataDir);
  // here, not in the store: ingest writes row files even when the store could not open (it then answers 503)
  mkdirSync(config.spoolDir, { recursive: true, mode: 0o700 });

  // checked here, so a bad key stops the start with a message naming the option
  const signingKeyFile = config.signingKeyFile ?? ensureDefaultKey(config.dataDir);
  loadSigningKey(signingKeyFile, config.signingKeyFile === undefined ? 'signing key' : '--signing-key');
  const attestationKeyFile =
    config.attestationKey === 'ecdsa-p256' ? ensureAttestationKey(config.dataDir) : null;
  if (attestationKeyFile !== null) loadSigningKey(attestationKeyFile, 'attestation key', 'ecdsa-p256');
  const pages = WebPages.load(); // before the store: a missing page file stops the start here
  const resolvers = await loadHostResolvers(config.resolvConf);
  const policy = await loadPolicy(config.policyFile, resolvers.addresses);
  log('info', 'policy', {
    source: policy.policy.source,
    rules: policy.policy.rules.length,
    host_resolvers: resolvers.addresses,
  });
  log('info', 'hook settings', {
    path: writeHookSettings(config.dataDir, policy.policy),
    ...hookSettingsOf(policy.policy),
  });
  ensureHookSpoolDir(config.dataDir); // hooks sent while the daemon starts are spooled, not lost
  log('info', 'event hashing', { batch: batchHashing }); // native (native/hash) or js
  let failStop: (error: ProvdError) => void = () => undefined;
  const storeFailed = new Promise<ProvdError>((resolve) => (failStop = resolve));
  const { client: store, state } = await startStoreThread(
    {
      store: { dbPath: config.dbPath, healthStallMs: config.faults.healthStallMs },
      telemetry: {
        spoolDir: config.spoolDir,
        spool: config.spool,
        faults: { stallMs: config.faults.commitStallMs, killAfterCommit: config.faults.killAfterCommit },
      },
      provenance: {
        signingKeyFile,
        attestationKeyFile,
        sealing: !config.faults.noSealing,
        hostLimits: config.hostLimits,
        hostAnchorFile: join(config.dataDir, hostAnchorFileName),
      },
      exports: { dir: join(config.dataDir, 'exports'), host: config.hostName },
    },
    (error) => failStop(error),
  );
  if (state.status === 'failed' && state.error.code === 'PROVD_ERR_STORE_LOCKED') {
    log('error', 'database is in use by another process', { db: config.dbPath, error: state.error });
    await store.close();
    return 1;
  }
  if (state.status === 'ready') {
    log('info', 'store opened', {
      db: config.dbPath,
      format_version: state.formatVersion,
      migrated: state.appliedMigrations,
    });
  } else {
    // The daemon still runs: health answers 503 and says why; the database is not modified.
    log('error', 'store unusable; health will answer 503', { db: config.dbPath, error: state.error });
  }

  const auth = config.authToken === undefined ? undefined : new BearerAuth(config.authToken);
  const recordCgroupRoot = probeRecordCgroupRoot();
  if (recordCgroupRoot.status === 'unavailable')
    log('warn', 'recorded commands run without a cgroup', { message: recordCgroupRoot.message });
  let sensor = Sensor.off('off', 'the sensor is starting');
  const bindingLog = await loadBindingLog(store, state.status === 'ready');
  const pool = createNormalizePool(bindingLog, policy.policy, resolvers.addresses);
  const killSwitch = new KillSwitch(store);
  const ingest = new IngestRouter(
    pool,
    store,
    config.spoolDir,
    {
      ...defaultIngestLimits,
      maxInFlightBytes: config.maxIngestQueueBytes,
      maxResidentBytes: config.maxMemoryBytes,
      commitDeadlineMs: config.ingestTimeoutMs,
    },
    (kills) => killSwitch.enforce(kills),
  );
  // a daemon before killed while its sensor ran: its loss is recorded before this one's sensor marks itself
  if (state.status === 'ready') await reportUncleanStop(store, config.dataDir);
  sensor = config.sensor
    ? await Sensor.start(ingest, { stallMs: config.faults.sensorStallMs }, config.capture, bindingLog)
    : Sensor.off('off', 'turned off with --no-sensor', config.capture);
  const capture = sensor.report();
  const sensorRuns = capture.status === 'running' || capture.status === 'degraded';
  if (sensorRuns && state.status === 'ready')
    writeSensorMark(config.dataDir, {
      pid: process.pid,
      started_ns: (BigInt(Date.now()) * 1_000_000n).toString(),
    });
  log(capture.status === 'running' ? 'info' : 'warn', 'sensor', {
    status: capture.status,
    message: capture.message,
    capture: config.capture,
  });
  if (config.captureDeprecated !== null)
    log('warn', 'deprecated --capture value', {
      given: config.captureDeprecated,
      means: config.capture,
      use: `--capture ${config.capture}`,
    });
  const hookTrust = new HookTrustGate(
    new AgentBinder(bindingLog, (binding) => storeBinding(store, bindingLog, binding)),
    // a hook caller's path is checked against the kernel's exec events (exec-history-check.ts)
    {
      execsSince: (pid, startTicks) => sensor.execsSince(pid, startTicks),
      execLossSeenAtMs: () => sensor.execLossSeenAtMs(),
      stats: () => sensor.execHistoryStats(),
      capturedSince: (lineage) => sensor.capturedSince(lineage),
    },
  );
  const watched = new WatchedCallers(() => sensor.markReport());
  const unstored = new UnstoredHooks(store);
  // sealed runs as OTLP traces, from the store to the exporter thread (docs/operations.md)
  const otlp =
    config.otlpEndpoint === null || state.status !== 'ready'
      ? null
      : new OtlpForwarder(store, config.otlpEndpoint);
  if (otlp !== null) log('info', 'otlp export', { endpoint: otlp.check().endpoint });
  const readiness = new ReadinessCheck(
    store,
    otlpCheckOf(otlp, {
      record_cgroup: recordCgroupCheck(recordCgroupRoot),
      host_resolvers: hostResolversCheck(resolvers),
      ...(config.faults.noSealing ? { sealing: noSealingCheck } : {}),
      get watched_callers() {
        return watched.check();
      },
      // a getter: read at every check
      get hooks() {
        // and the hook events whose store write failed after their answer (logged each)
        return {
          ...hookTrustCheck(hookTrust),
          store_failed: unstored.count,
          stored_alone: hookStoredAlone.count,
        };
      },
    }),
    () => ({ ...sensor.report() }),
  );
  const snapshots = new SnapshotPool();
  const hooks = {
    store,
    policy,
    keepText: config.keepHookText,
    trust: hookTrust,
    unstored,
    storeSensorPending: () => sensor.storePending(),
    writeStallMs: config.faults.hookWriteStallMs,
  };
  const watchCgroupRoot = probeRecordCgroupRoot(undefined, watchCgroupName(config.dataDir));
  if (watchCgroupRoot.status === 'unavailable')
    log('warn', 'provd watch cannot start agents: no cgroup for them', { message: watchCgroupRoot.message });
  const watches = new Watches({
    store,
    bindingLog,
    cgroupRoot: watchCgroupRoot,
    storeSensorPending: () => sensor.storePending(),
  });
  await watches.adoptLeftCgroups();
  const server = new HttpServer({
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    auth,
    router: Router.of([...endpoints, ...adapters], {
      store,
      readiness,
      ingest,
      ingestState: () => ({ inFlightBytes: ingest.queuedBytes, refusedRequests: ingest.refusedRequests }),
      bindingLog,
      record: {
        store,
        bind: recordBinder(store, bindingLog),
        cgroupRoot: recordCgroupRoot,
        authConfigured: auth !== undefined,
        users: { daemonUid: process.getuid?.() ?? -1, configured: config.recordUser },
        snapshot: (root, limits, ignore) => snapshots.take(root, limits, ignore),
        defaultCwd: process.cwd(),
        watchKills: killSwitch.watch,
      },
      hooks,
      watches,
      policy,
      capture: () => sensor.report(),
      openapi: openapiBytes,
    }),
    bodyBudgets: { ingest: ingest.budget },
    pages,
    watched,
  });
  let port: number;
  try {
    port = await server.listen();
  } catch (error) {
    log('error', 'cannot listen', { error: toErrorData(error, 'PROVD_ERR_HTTP_LISTEN') });
    await otlp?.stop();
    await sensor.stop();
    await release(server, pool, snapshots);
    await store.close();
    removeSensorMark(config.dataDir);
    return 1;
  }
  // from now on the kernel marks bound processes' connects to this port (src/sensor/connect-mark.ts)
  const mark = sensor.markConnectsTo(config.host, port);
  log(mark.active ? 'info' : 'warn', 'connect mark', { active: mark.active, why: mark.why });
  let hookSocket: HookSocketServer | null;
  try {
    hookSocket = await startHookTransport(config.dataDir, hooks, store, state.status === 'ready');
  } catch (error) {
    log('error', 'cannot open the hook socket', { error: toErrorData(error, 'PROVD_ERR_HOOK_SOCKET') });
    server.stopAccepting();
    await otlp?.stop();
    await sensor.stop();
    await release(server, pool, snapshots);
    await store.close();
    removeSensorMark(config.dataDir);
    return 1;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log('info', 'listening', {
    url: `http://${host}:${port}`,
    port,
    data_dir: config.dataDir,
    auth: auth !== undefined,
  });

  const reason = await Promise.race([stopSignal, storeFailed]);
  if (reason instanceof ProvdError) {
    log('error', 'store thread stopped; shutting down', { error: reason.toData() });
    await otlp?.stop();
    server.stopAccepting();
    await hookSocket?.close(0);
    await sensor.stop();
    await release(server, pool, snapshots);
    return 1;
  }
  log('info', 'shutting down', { signal: reason });
  readiness.stop();
  watches.stop();
  server.stopAccepting();
  const hooksDrained = hookSocket?.close(drainTimeoutMs);
  const drained = await server.drain(drainTimeoutMs);
  await hooksDrained;
  if (!drained)
    log('warn', 'requests still in flight after the drain timeout', { timeout_ms: drainTimeoutMs });
  await sensor.stop(); // what the rings still held is stored before the pool ends
  await release(server, pool, snapshots);
  await unstored.write(); // the gaps of hook events the store failed, once more if not yet written
  await otlp?.stop(); // a page in flight and not acknowledged is sent again at the next start
  try {
    await store.close();
  } catch (error) {
    log('error', 'store did not close cleanly', { error: toErrorData(error, 'PROVD_ERR_STORE_STOPPED') });
    return 1;
  }
  removeSensorMark(config.dataDir); // what the sensor read is stored: no gap at the next start
  // what the process held at its peak, for an operator sizing a host (README, Memory)
  log('info', 'stopped', {
    peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    malloc_arenas: mallocArenas(),
  });
  return 0;
}

/**
 * Closes every socket and ends the normalize threads before the process exits. Left to
 * process.exit, a worker thread still starting up or a socket uWS still holds could take the
 * process down by a signal instead of the exit code (see also normalize-pool.ts).
 */
async function release(server: HttpServer, pool: Piscina, snapshots: SnapshotPool): Promise<void> {
  server.closeAll();
  try {
    await Promise.all([pool.destroy(), snapshots.close()]);
  } catch (error) {
    log('warn', 'the normalize or snapshot threads did not stop cleanly', {
      error: toErrorData(error, 'PROVD_ERR_NORMALIZE_POOL'),
    });
  }
}

/** `checks` with the OTLP export's check beside them when it runs, read at every check (a getter). */
function otlpCheckOf<Checks extends HealthChecks>(otlp: OtlpForwarder | null, checks: Checks): HealthChecks {
  if (otlp === null) return checks;
  return Object.defineProperty(checks, 'otlp', { enumerable: true, get: () => otlp.check() });
}

/** The workers' binding log, filled with every binding the store holds. */
async function loadBindingLog(store: QueryClient<TelemetryKinds>, ready: boolean): Promise<BindingLog> {
  const bindingLog = new BindingLog();
  if (!ready) return bindingLog;
  const { records } = await store.queryJson('bindings', {}, { deadlineMs: 60_000 });
  for (const record of records) bindingLog.append(bindingFromJson(record));
  return bindingLog;
}

/** The host's resolvers; a file given with --resolv-conf that cannot be read stops the start. */
async function loadHostResolvers(resolvConf: DaemonConfig['resolvConf']): Promise<HostResolvers> {
  const resolvers = await readHostResolvers(resolvConf.files, !resolvConf.given);
  const unread = resolvers.unread[0];
  if (unread !== undefined && resolvConf.given)
    throw new ProvdError('invalid_argument', `--resolv-conf ${unread.path}: ${unread.error}`);
  if (resolvers.unread.length > 0) log('warn', 'resolv.conf not read', { unread: resolvers.unread });
  return resolvers;
}

/** Resolves with the first SIGINT/SIGTERM; a second one exits at once. */
function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.on('SIGINT', forceExit).on('SIGTERM', forceExit);
      resolve(signal);
    };
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  });
}

function forceExit(signal: NodeJS.Signals): void {
  log('warn', 'second signal: exiting without a clean shutdown', { signal });
  // not process.exit: it joins every thread, and a thread busy in DuckDB can hold it forever
  process.kill(process.pid, 'SIGKILL');
}

/** The built-in policy, or the rules file given with --policy: a bad file stops the start, saying why. */
async function loadPolicy(file: string | undefined, hostResolvers: readonly string[]): Promise<PolicyEngine> {
  if (file === undefined) return new PolicyEngine(defaultPolicy, hostResolvers);
  try {
    return await loadPolicyFile(file, hostResolvers);
  } catch (error) {
    if (error instanceof PolicyFileError) throw new ProvdError('invalid_argument', error.message);
    throw error;
  }
}
