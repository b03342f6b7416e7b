/**
 * Daemon configuration from flags and environment, checked eagerly: a bad value stops the start
 * with a message naming the option and the rule.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isLoopbackName } from './browser-guard.js';
import { checkedToken, readTokenFile } from '../shared/auth-token.js';
import { findUser, type CommandUser } from '../provenance/record/command-user.js';
import { ProvdError } from '../shared/errors.js';
import { defaultIngestLimits } from '../ingest/ingest-router.js';
import { defaultSpoolLimits, type SpoolLimits } from '../telemetry/spool-limits.js';
import type { KeyAlgorithm } from '../provenance/signing-key.js';
import { deprecatedCaptureModes, type CaptureMode } from '../sensor/capture-filter.js';
import { exportHostName } from '../views/export/export-layout.js';
import {
  defaultHostRoundMs,
  defaultVerifyFullEveryMs,
  type HostLimits,
} from '../provenance/host/host-limits.js';
import { defaultResolvConfFiles } from '../security/policy/host-resolvers.js';
import { daemonOption, givenValue, type DaemonFlags } from './daemon-options.js';

/** Everything the daemon needs to start. */
export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  dbPath: string;
  /** Row files between the normalize workers and the store actor. */
  spoolDir: string;
  authToken: string | undefined;
  maxBodyBytes: number;
  /** Bytes of ingest bodies in flight at once; past it ingest answers 429. */
  maxIngestQueueBytes: number;
  /** The daemon's resident memory past which ingest answers 429. */
  maxMemoryBytes: number;
  /** The checkpoint signing key given with --signing-key; undefined: the data dir's own. */
  signingKeyFile: string | undefined;
  /** `--attestation-key`: attestations signed by the checkpoint key (ed25519) or a P-256 key of their own. */
  attestationKey: KeyAlgorithm;
  /** How long an ingest request waits for its commit before it is rolled back and answered 503. */
  ingestTimeoutMs: number;
  spool: SpoolLimits;
  /** Host event retention and the host chain's round (docs/retention.md). */
  hostLimits: HostLimits;
  /** Whether to run the eBPF sensor where the host allows it (`--no-sensor`: never). */
  sensor: boolean;
  /** What the sensor captures: only what bindings name, or every process (README: The eBPF sensor). */
  capture: CaptureMode;
  /** The deprecated name `--capture` was given (`bound`, `all`), for the daemon's log; null when none. */
  captureDeprecated: string | null;
  /** The rules file given with --policy; undefined: the built-in policy. */
  policyFile: string | undefined;
  /**
   * The resolv.conf files the host's resolvers are read from (`--resolv-conf`, PROVD_RESOLV_CONF;
   * default /etc/resolv.conf and systemd-resolved's), and whether they were given (then each must be read).
   */
  resolvConf: { files: string[]; given: boolean };
  /** `--record-user`: whom recorded commands run as; undefined: their cwd's owner (command-user.ts). */
  recordUser: CommandUser | undefined;
  /** `--keep-hook-text`: agents' prompts and assistant messages are stored as text, not only by hash (docs/agents.md). */
  keepHookText: boolean;
  /** The host partition of exports (`--host-name`, else the machine's name), sanitised for a path. */
  hostName: string;
  /** `--mcp-read-only`: the MCP endpoint (/mcp) lists and serves no context writes (docs/ai-tools.md). */
  mcpReadOnly: boolean;
  /** `--otlp-endpoint`: where sealed runs are sent as OTLP/HTTP traces; null: not sent (docs/operations.md). */
  otlpEndpoint: URL | null;
  faults: Faults;
}

/** Fault injection for tests only (PROVD_FAULT_*); all off unless set. */
export interface Faults {
  /** The store thread blocks this long inside every readiness check. */
  healthStallMs: number;
  /** Each ingest commit waits this long before COMMIT, as a slow disk would. */
  commitStallMs: number;
  /** The daemon kills itself (SIGKILL) right after an ingest COMMIT, before answering. */
  killAfterCommit: boolean;
  /** Events are committed without event_batch objects or checkpoints: benchmarks measure what sealing costs. */
  noSealing: boolean;
  /** The sensor's ring reader sleeps this long after each poll, so a burst overflows the kernel's ring buffer. */
  sensorStallMs: number;
  /** The main thread blocks this long after a PreToolUse's answer, before its write is built, as under load. */
  hookWriteStallMs: number;
}

export const defaultListen = '127.0.0.1:8574';
export const defaultMaxBodyBytes = 64 * 1024 * 1024;
export const databaseFileName = 'provd.duckdb';

/**
 * `--capture` / PROVD_CAPTURE: `agents` (the default) stores only what a binding names, `host` every
 * process; the old names `bound` and `all` still mean them, and `deprecated` names the one given.
 */
function parseCapture(value: string): { mode: CaptureMode; deprecated: string | null } {
  if (value === 'agents' || value === 'host') return { mode: value, deprecated: null };
  const mode = Object.hasOwn(deprecatedCaptureModes, value) ? deprecatedCaptureModes[value] : undefined;
  if (mode !== undefined) return { mode, deprecated: value };
  throw invalid(`--capture / PROVD_CAPTURE must be agents or host, not ${JSON.stringify(value)}`);
}

/** `--attestation-key` / PROVD_ATTESTATION_KEY: `ed25519` (the checkpoint key, the default) or `ecdsa-p256`. */
function parseAttestationKey(value: string): KeyAlgorithm {
  if (value === 'ed25519' || value === 'ecdsa-p256') return value;
  throw invalid(
    `--attestation-key / PROVD_ATTESTATION_KEY must be ed25519 or ecdsa-p256, not ${JSON.stringify(value)}`,
  );
}

function captureOf(parsed: { mode: CaptureMode; deprecated: string | null }) {
  return { capture: parsed.mode, captureDeprecated: parsed.deprecated };
}

/**
 * Resolves flags over environment over defaults: the environment variable of each option is the one
 * daemon-options.ts declares.
 */
export function resolveConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  const given = <P extends keyof DaemonFlags>(property: P): DaemonFlags[P] =>
    givenValue(flags, env, property);
  const { host, port } = parseListen(given('listen') ?? defaultListen);
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(env));
  // DuckDB reads the paths of the files the store loads (rows files, exports) as glob patterns
  if (/[*?[]/.test(dataDir)) {
    throw invalid(
      `--data-dir ${JSON.stringify(dataDir)} holds *, ? or [: DuckDB reads the paths of the files provd loads ` +
        'from it as patterns, so they would name other files; choose a data dir without these characters',
    );
  }
  const authToken = resolveToken(flags, env);
  // without a token anyone who reaches the port may write evidence: only this host's users may
  if (authToken === undefined && !isLoopbackName(host)) {
    throw invalid(
      `--listen ${host} is not a loopback address, and without a token anyone who reaches it could write evidence: ` +
        'set --auth-token (or PROVD_AUTH_TOKEN), or listen on 127.0.0.1, [::1] or localhost',
    );
  }
  return {
    host,
    port,
    dataDir,
    dbPath: join(dataDir, databaseFileName),
    spoolDir: join(dataDir, 'spool'),
    authToken,
    maxBodyBytes: parseInteger('--max-body-bytes', given('maxBodyBytes'), defaultMaxBodyBytes, 1),
    maxIngestQueueBytes: parseInteger(
      '--max-ingest-queue-bytes',
      given('maxIngestQueueBytes'),
      defaultIngestLimits.maxInFlightBytes,
      1,
    ),
    maxMemoryBytes: parseInteger(
      '--max-memory-bytes',
      given('maxMemoryBytes'),
      defaultIngestLimits.maxResidentBytes,
      1,
    ),
    signingKeyFile: ifGiven(given('signingKey'), resolve),
    attestationKey: parseAttestationKey(given('attestationKey') ?? 'ed25519'),
    ingestTimeoutMs: parseDurationMs(
      '--ingest-timeout',
      given('ingestTimeout'),
      defaultIngestLimits.commitDeadlineMs,
    ),
    sensor: given('sensor') ?? true,
    ...captureOf(parseCapture(given('capture') ?? 'agents')),
    policyFile: ifGiven(given('policy'), resolve),
    resolvConf: resolvConfFiles(given('resolvConf')),
    recordUser: parseRecordUser(given('recordUser')),
    keepHookText: given('keepHookText') ?? false,
    hostName: exportHostName(given('hostName')),
    mcpReadOnly: given('mcpReadOnly') ?? false,
    otlpEndpoint: ifGiven(given('otlpEndpoint'), parseOtlpEndpoint) ?? null,
    faults: {
      healthStallMs: parseInteger('PROVD_FAULT_HEALTH_STALL_MS', env['PROVD_FAULT_HEALTH_STALL_MS'], 0, 0),
      commitStallMs: parseInteger('PROVD_FAULT_COMMIT_STALL_MS', env['PROVD_FAULT_COMMIT_STALL_MS'], 0, 0),
      killAfterCommit: env['PROVD_FAULT_KILL_AFTER_COMMIT'] === '1',
      sensorStallMs: parseInteger('PROVD_FAULT_SENSOR_STALL_MS', env['PROVD_FAULT_SENSOR_STALL_MS'], 0, 0),
      noSealing: env['PROVD_FAULT_NO_SEALING'] === '1',
      hookWriteStallMs: parseInteger(
        'PROVD_FAULT_HOOK_WRITE_STALL_MS',
        env['PROVD_FAULT_HOOK_WRITE_STALL_MS'],
        0,
        0,
      ),
    },
    spool: {
      ttlMs: parseDurationMs('--spool-ttl', given('spoolTtl'), defaultSpoolLimits.ttlMs),
      maxEvents: parseInteger('--spool-max-events', given('spoolMaxEvents'), defaultSpoolLimits.maxEvents, 1),
      maxBytes: parseInteger('--spool-max-bytes', given('spoolMaxBytes'), defaultSpoolLimits.maxBytes, 1),
    },
    hostLimits: {
      ageMs: parseRetention(given('retainHostEventsAge'), (value) =>
        parseDurationMs('--retain-host-events-age', value, 0),
      ),
      maxBytes: parseRetention(given('retainHostEventsBytes'), (value) =>
        parseSize('--retain-host-events-bytes', value),
      ),
      // test hook: rounds more often than a minute, so a test need not wait for one
      roundMs: parseInteger(
        'PROVD_FAULT_HOST_ROUND_MS',
        env['PROVD_FAULT_HOST_ROUND_MS'],
        defaultHostRoundMs,
        1,
      ),
      verifyFullEveryMs:
        given('verifyHostFullEvery') === 'off'
          ? null
          : parseDurationMs(
              '--verify-host-full-every',
              given('verifyHostFullEvery'),
              defaultVerifyFullEveryMs,
            ),
      killBeforeAnchor: env['PROVD_FAULT_KILL_BEFORE_ANCHOR'] === '1',
    },
  };
}

/**
 * The token, from the first given of --auth-token, --auth-token-file, $PROVD_AUTH_TOKEN and
 * $PROVD_AUTH_TOKEN_FILE; both flags at once is a mistake worth naming.
 */
function resolveToken(flags: DaemonFlags, env: NodeJS.ProcessEnv): string | undefined {
  if (flags.authToken !== undefined && flags.authTokenFile !== undefined)
    throw invalid('give --auth-token or --auth-token-file, not both');
  if (flags.authToken !== undefined) return checkedToken(flags.authToken, '--auth-token');
  if (flags.authTokenFile !== undefined)
    return readTokenFile(resolve(flags.authTokenFile), '--auth-token-file');
  const [tokenName, fileName] = [daemonOption('authToken').env!, daemonOption('authTokenFile').env!];
  const fromEnv = env[tokenName];
  if (fromEnv !== undefined) return checkedToken(fromEnv, tokenName);
  const file = env[fileName];
  return file === undefined ? undefined : readTokenFile(resolve(file), fileName);
}

/** `--resolv-conf FILE` / PROVD_RESOLV_CONF: the one file the host's resolvers are read from. */
function resolvConfFiles(given: string | undefined): DaemonConfig['resolvConf'] {
  if (given === undefined) return { files: [...defaultResolvConfFiles], given: false };
  if (given === '') throw invalid('--resolv-conf / PROVD_RESOLV_CONF must name a file, not ""');
  return { files: [resolve(given)], given: true };
}

/**
 * `--otlp-endpoint URL`: the OTLP/HTTP traces URL as a collector documents it (`.../v1/traces`).
 * http or https only; no user or password in it (they would show in the process list: the SDK
 * reads headers such as an API key from OTEL_EXPORTER_OTLP_HEADERS), and no fragment.
 */
export function parseOtlpEndpoint(value: string): URL {
  const rule = 'must be an http:// or https:// URL like http://127.0.0.1:4318/v1/traces';
  if (!URL.canParse(value)) throw invalid(`--otlp-endpoint ${rule}, got ${JSON.stringify(value)}`);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(`--otlp-endpoint ${rule}, not ${url.protocol.slice(0, -1)}: ${JSON.stringify(value)}`);
  if (url.username !== '' || url.password !== '')
    throw invalid(
      '--otlp-endpoint must not hold a user or password (the process list shows it): ' +
        'give credentials as headers in OTEL_EXPORTER_OTLP_HEADERS',
    );
  if (url.hash !== '')
    throw invalid(`--otlp-endpoint must not hold a #fragment, got ${JSON.stringify(value)}`);
  return url;
}

/** `--record-user` / PROVD_RECORD_USER: a user of /etc/passwd, by name or uid. */
function parseRecordUser(value: string | undefined): CommandUser | undefined {
  if (value === undefined) return undefined;
  const user = findUser(value);
  if (user === undefined)
    throw invalid(`--record-user / PROVD_RECORD_USER names no user of /etc/passwd: "${value}"`);
  return user;
}

/** `$PROVD_HOME` (the data dir's declared variable) unless empty, else `$XDG_DATA_HOME/provd`, else `~/.local/share/provd`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env[daemonOption('dataDir').env!];
  if (home) return home;
  if (env['XDG_DATA_HOME']) return join(env['XDG_DATA_HOME'], 'provd');
  return join(homedir(), '.local', 'share', 'provd');
}

/** Parses HOST:PORT or [IPV6]:PORT. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !Number.isInteger(port) || port > 65535) {
    throw invalid(`--listen must be HOST:PORT or [IPV6]:PORT with a port 0..65535, got "${value}"`);
  }
  return { host, port };
}

function parseInteger(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min) {
    throw invalid(`${name} must be an integer >= ${min}, got "${value}"`);
  }
  return number;
}

/** A duration: an integer with a unit, ms, s, m, h or d (a bare integer is seconds). */
export function parseDurationMs(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(value);
  const amount = Number(match?.[1]);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match?.[2] ?? 's'] ?? 1000;
  if (match === null || !Number.isSafeInteger(amount * scale) || amount === 0) {
    throw invalid(`${name} must be a positive duration like 120, 90s, 2m, 7d or 500ms, got "${value}"`);
  }
  return amount * scale;
}

/** What `parse` makes of a value given; undefined when none is. */
function ifGiven<T>(value: string | undefined, parse: (value: string) => T): T | undefined {
  return value === undefined ? undefined : parse(value);
}

/** A retention setting: absent or `off` is null (nothing removed), else what `parse` makes of it. */
function parseRetention(value: string | undefined, parse: (value: string) => number): number | null {
  return value === undefined || value === 'off' ? null : parse(value);
}

/** A size in bytes: an integer, or one with a unit K, M or G (powers of 1024: 512M, 2G). */
export function parseSize(name: string, value: string): number {
  const match = /^(\d+)([KMG])?$/.exec(value);
  const scale = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match?.[2] ?? ''] ?? 1;
  const bytes = Number(match?.[1]) * scale;
  if (match === null || !Number.isSafeInteger(bytes) || bytes === 0)
    throw invalid(`${name} must be a positive size like 1048576, 512M or 2G (or off), got "${value}"`);
  return bytes;
}

function invalid(message: string): ProvdError {
  return new ProvdError('PROVD_ERR_CONFIG_INVALID', message);
}
