/**
 * The daemon under `node --cpu-prof`, for finding where a benchmark's time goes. Node refuses
 * --cpu-prof in NODE_OPTIONS, so the flags go before the script: spawnServer runs
 * `node <script> <args>`, and the "script" here is the first flag. Every thread writes its own
 * .cpuprofile into `profileDir` when the daemon exits cleanly (SIGTERM, not SIGKILL).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { cliPath, spawnServer, type RunningDaemon } from '../../test/support/daemon.js';

export async function startProfiledDaemon(options: {
  dataDir: string;
  profileDir: string;
  /** More environment for the daemon (PROVD_TRACE_STEPS, say). */
  env?: Record<string, string>;
  /** false: --no-sensor (default: the daemon's own default, the sensor as root). */
  sensor?: boolean;
}): Promise<RunningDaemon> {
  const profileDir = resolve(options.profileDir);
  mkdirSync(profileDir, { recursive: true });
  const args = [
    `--cpu-prof-dir=${profileDir}`,
    cliPath,
    ...['daemon', '--listen', '127.0.0.1:0', '--data-dir', options.dataDir],
    ...(options.sensor === false ? ['--no-sensor'] : []),
  ];
  // as startDaemon: the caller's own token must not turn auth on
  const { PROVD_AUTH_TOKEN: _ignored, ...env } = process.env;
  return { ...(await spawnServer('--cpu-prof', args, { ...env, ...options.env })), dataDir: options.dataDir };
}
