/**
 * Starts the real daemon (the compiled CLI) as a child process on a random loopback port, with a
 * real DuckDB file in a temporary data dir, and stops it the way a user would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Path of the compiled CLI entry point. */
export const cliPath = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface DaemonOptions {
  dataDir?: string;
  authToken?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** A running daemon child process. */
export interface RunningDaemon {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Every log line the daemon wrote to stderr so far, parsed. */
  logs: Record<string, unknown>[];
  /** Sends a signal and resolves with the exit code (null if killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Makes a fresh temporary data dir; the caller removes it with `removeDir`. */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'provd-test-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Spawns `provd daemon --listen 127.0.0.1:0` and waits for its "listening" log line. */
export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  const dataDir = options.dataDir ?? makeDataDir();
  const args = [cliPath, 'daemon', '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...(options.args ?? [])];
  if (options.authToken !== undefined) args.push('--auth-token', options.authToken);
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env['PROVD_AUTH_TOKEN'];
  if (options.env?.['PROVD_AUTH_TOKEN'] !== undefined) env['PROVD_AUTH_TOKEN'] = options.env['PROVD_AUTH_TOKEN'];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'inherit', 'pipe'] });
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        entry = { level: 'raw', msg: line };
      }
      logs.push(entry);
      if (entry['msg'] === 'listening') resolve(Number(entry['port']));
    });
    void exited.then((code) =>
      reject(new Error(`daemon exited with code ${code} before listening:\n${logs.map((l) => JSON.stringify(l)).join('\n')}`)),
    );
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    child,
    logs,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
