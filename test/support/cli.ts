/** Runs the compiled CLI as a child process, the way a user's shell would, and collects what it printed. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cliPath } from './daemon.js';

// below mocha's 60 s, so a hung CLI fails its test instead of the run
const childTimeoutMs = 45_000;

/** What one CLI run printed, and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `provd ARGS` with `input` on stdin (stdout and stderr are pipes, not terminals). The caller's
 * own PROVD_AUTH_TOKEN(_FILE), PROVD_URL and NO_COLOR do not leak in; `env` adds what a test wants, `cwd`
 * is where it runs (this process's by default).
 */
export async function runCli(
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  const {
    PROVD_AUTH_TOKEN: _token,
    PROVD_AUTH_TOKEN_FILE: _tokenFile,
    PROVD_URL: _url,
    NO_COLOR: _noColor,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, [cliPath, ...args], {
    env: { ...inherited, ...options.env },
    cwd: options.cwd,
    timeout: childTimeoutMs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdin.end(options.input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/**
 * Starts `provd daemon` on a loopback port of its own with `dataDir`, without the sensor, and with
 * `args`: for a start the test expects refused (it exits, and its code and output come back).
 */
export function runDaemonCli(dataDir: string, args: readonly string[] = []): Promise<CliRun> {
  return runCli(['daemon', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--no-sensor', ...args]);
}

/**
 * Runs `provd` once per entry of `calls`, a few at a time (most of a CLI call is starting node, on
 * one core), and gives back what each printed, in the order of `calls`.
 */
export async function runClis(
  calls: readonly (readonly [args: readonly string[], options?: Parameters<typeof runCli>[1]])[],
  atOnce = 4,
): Promise<CliRun[]> {
  const runs: CliRun[] = new Array<CliRun>(calls.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < calls.length; index = next++) {
      const [args, options] = calls[index]!;
      runs[index] = await runCli(args, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, calls.length) }, worker));
  return runs;
}
