/**
 * Daemon configuration from flags and environment, checked eagerly: a bad value stops the start
 * with a message naming the option and the rule.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ProvdError } from '../shared/errors.js';

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
  /** Test fault injection (PROVD_FAULT_HEALTH_STALL_MS): the store thread blocks this long per readiness check. */
  healthStallMs: number;
}

/** The flags of `provd daemon`, as given (all optional). */
export interface DaemonFlags {
  listen?: string | undefined;
  dataDir?: string | undefined;
  authToken?: string | undefined;
  maxBodyBytes?: string | undefined;
}

export const defaultListen = '127.0.0.1:8574';
export const defaultMaxBodyBytes = 64 * 1024 * 1024;
export const databaseFileName = 'provd.duckdb';

/** Resolves flags over environment over defaults. */
export function resolveConfig(flags: DaemonFlags, env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  const { host, port } = parseListen(flags.listen ?? defaultListen);
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(env));
  const authToken = flags.authToken ?? env['PROVD_AUTH_TOKEN'];
  if (authToken !== undefined && authToken.trim() === '') {
    throw invalid('--auth-token / PROVD_AUTH_TOKEN must not be empty; unset it to run without auth');
  }
  if (authToken !== undefined && !/^[\x21-\x7e]+$/.test(authToken)) {
    throw invalid('--auth-token / PROVD_AUTH_TOKEN must be printable ASCII without spaces (RFC 6750 token)');
  }
  return {
    host,
    port,
    dataDir,
    dbPath: join(dataDir, databaseFileName),
    spoolDir: join(dataDir, 'spool'),
    authToken,
    maxBodyBytes: parseInteger('--max-body-bytes', flags.maxBodyBytes, defaultMaxBodyBytes, 1),
    healthStallMs: parseInteger('PROVD_FAULT_HEALTH_STALL_MS', env['PROVD_FAULT_HEALTH_STALL_MS'], 0, 0),
  };
}

/** `$PROVD_HOME`, else `$XDG_DATA_HOME/provd`, else `~/.local/share/provd`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['PROVD_HOME']) return env['PROVD_HOME'];
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

function invalid(message: string): ProvdError {
  return new ProvdError('PROVD_ERR_CONFIG_INVALID', message);
}
