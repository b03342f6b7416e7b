/**
 * Starts the real daemon (the compiled CLI) as a child process on a random loopback port, with a
 * real DuckDB file in a temporary data dir, and stops it the way a user would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';

const startTimeoutMs = 20_000;
const maxLogLines = 10_000;

/** Path of the compiled CLI entry point. */
export const cliPath = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface DaemonOptions {
  dataDir?: string;
  authToken?: string;
  /** Run the eBPF sensor (off unless asked: it captures the whole host). */
  sensor?: boolean;
  /** Run the daemon as this user and group instead of the test's own. */
  identity?: { uid: number; gid: number };
  /**
   * `--record-user`: whom recorded commands run as. With a token and no choice here, `root`: tests
   * that record commands in their own root-owned temp dirs run them as root, named explicitly;
   * null leaves the flag out (the owner of cwd).
   */
  recordUser?: string | null;
  args?: string[];
  env?: Record<string, string>;
}

/** A server child process that announced its port with a `{"msg":"listening","port":N}` stderr line. */
export interface RunningServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** Every log line the server wrote to stderr so far, parsed (bounded). */
  logs: Record<string, unknown>[];
  /** Resolves with the exit code (null if killed by a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** Sends a signal and resolves with the exit code (null if killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A running daemon child process. */
export interface RunningDaemon extends RunningServer {
  dataDir: string;
}

/** Makes a fresh temporary data dir; the caller removes it with `removeDir`. */
/** Waits until the daemon has logged `msg` at least `times` times (a fault hook's stall, a shutdown). */
export async function awaitLogged(
  daemon: { logs: Record<string, unknown>[] },
  msg: string,
  times = 1,
): Promise<void> {
  await eventually(
    `"${msg}" logged ${times} times`,
    () => daemon.logs.filter((entry) => entry['msg'] === msg).length,
    (count) => count >= times,
  );
}

/** A loopback port that was free a moment ago (the kernel's choice for port 0, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'provd-test-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Spawns `provd daemon --listen 127.0.0.1:0` and waits for its "listening" log line. */
export async function startDaemon(options: DaemonOptions = {}): Promise<RunningDaemon> {
  const dataDir = options.dataDir ?? makeDataDir();
  // the sensor would store every process of the host into the test's store: only sensor tests ask for it
  const sensor = options.sensor === true ? [] : ['--no-sensor'];
  const args = [
    'daemon',
    '--listen',
    '127.0.0.1:0',
    '--data-dir',
    dataDir,
    ...sensor,
    ...(options.args ?? []),
  ];
  if (options.authToken !== undefined) args.push('--auth-token', options.authToken);
  const recordUser =
    options.recordUser === undefined && options.authToken !== undefined ? 'root' : options.recordUser;
  if (typeof recordUser === 'string') args.push('--record-user', recordUser);
  // The caller's own PROVD_AUTH_TOKEN must not leak in: auth is on only when a test asks for it.
  const { PROVD_AUTH_TOKEN: _ignored, PROVD_AUTH_TOKEN_FILE: _ignoredFile, ...inherited } = process.env;
  return {
    ...(await spawnServer(cliPath, args, { ...inherited, ...options.env }, options.identity)),
    dataDir,
  };
}

/**
 * Spawns a Node script that serves HTTP on a loopback port and waits, bounded, for its listening
 * line. stdin stays a pipe from this process, so a server that watches it leaves when we do.
 */
export async function spawnServer(
  script: string,
  args: string[] = [],
  env = process.env,
  identity?: { uid: number; gid: number },
  timeoutMs = startTimeoutMs,
): Promise<RunningServer> {
  const child = spawn(process.execPath, [script, ...args], {
    env,
    stdio: ['pipe', 'ignore', 'pipe'],
    ...identity,
  });
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not listen within ${timeoutMs} ms`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      const seen = logs.map((entry) => JSON.stringify(entry)).join('\n');
      reject(new Error(`${script} exited with code ${code} before listening:\n${seen}`));
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      const entry = parseLogLine(line);
      if (logs.length < maxLogLines) logs.push(entry);
      if (entry['msg'] === 'listening') {
        clearTimeout(timer);
        resolve(Number(entry['port']));
      }
    });
  });

  let signalled = false;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    logs,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      // one signal only: a second one makes the daemon kill itself (SIGKILL) mid-shutdown
      if (!signalled && child.exitCode === null && child.signalCode === null) child.kill(signal);
      signalled = true;
      return exited;
    },
  };
}

/**
 * Stops the server with SIGTERM and fails, naming the signal and the server's last log lines, unless
 * it exited with code 0.
 */
export async function assertStopsCleanly(
  server: RunningServer,
  message = 'the server stops cleanly',
): Promise<void> {
  const code = await server.stop();
  if (code === 0) return;
  const last = server.logs.slice(-20).map((entry) => JSON.stringify(entry));
  const how = code === null ? `was killed by ${server.child.signalCode}` : `exited with code ${code}`;
  throw new Error(`${message}: it ${how}; its last log lines:\n${last.join('\n')}`);
}

function parseLogLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { level: 'raw', msg: line };
  }
}

/** A fresh data dir per test, and every daemon started through `start` stopped after it. */
export interface DaemonFixture {
  readonly dataDir: string;
  start(options?: Omit<DaemonOptions, 'dataDir'>): Promise<RunningDaemon>;
}

/** Registers mocha hooks (call it inside a describe) that give each test its own data dir. */
export function useDaemonFixture(): DaemonFixture {
  let dataDir = '';
  const running: RunningDaemon[] = [];
  beforeEach(function () {
    dataDir = makeDataDir();
  });
  afterEach(async function () {
    await Promise.all(running.splice(0).map((daemon) => daemon.stop()));
    removeDir(dataDir);
  });
  return {
    get dataDir() {
      return dataDir;
    },
    async start(options = {}) {
      const daemon = await startDaemon({ ...options, dataDir });
      running.push(daemon);
      return daemon;
    },
  };
}

/** A data dir a daemon filled once for a describe block, then stopped cleanly. */
export interface StoredDataDir {
  /** Copies it into `dataDir` (a test's own, e.g. useDaemonFixture's), which a daemon then opens. */
  copyInto(dataDir: string): void;
}

/**
 * Registers mocha hooks (call it inside a describe) that fill a data dir once, before the block's
 * first test, through a daemon started on it with `options` and stopped cleanly, and remove it
 * after the last: each test that copies it has the same store as if it had started, filled and
 * stopped a daemon of its own (about a second of CPU a daemon, more for a stop that waits for
 * seals), and its own copy.
 */
export function useStoredDataDir(
  fill: (daemon: RunningDaemon) => Promise<void> = async () => {},
  options: Omit<DaemonOptions, 'dataDir'> = {},
): StoredDataDir {
  let stored = '';
  before(async function () {
    stored = makeDataDir();
    const daemon = await startDaemon({ ...options, dataDir: stored });
    let filled = false;
    try {
      await fill(daemon);
      filled = true;
    } finally {
      if (!filled) await daemon.stop();
    }
    await assertStopsCleanly(daemon);
  });
  after(function () {
    if (stored !== '') removeDir(stored);
  });
  return {
    copyInto(dataDir) {
      cpSync(stored, dataDir, { recursive: true });
    },
  };
}

/** One daemon for a whole describe block: started before its first test, stopped and removed after its last. */
export interface SharedDaemon {
  readonly daemon: RunningDaemon;
}

/** Registers mocha hooks (call it inside a describe) that share one daemon, with its own data dir, across the block. */
export function useSharedDaemon(options: Omit<DaemonOptions, 'dataDir'> = {}): SharedDaemon {
  let daemon: RunningDaemon | undefined;
  before(async function () {
    daemon = await startDaemon(options);
  });
  after(async function () {
    if (daemon === undefined) return;
    await daemon.stop();
    removeDir(daemon.dataDir);
  });
  return {
    get daemon() {
      if (daemon === undefined)
        throw new Error('the shared daemon is not started: use it inside a test or hook');
      return daemon;
    },
  };
}
