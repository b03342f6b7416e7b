/**
 * The daemon under soak: a real `provd daemon` process with its own data dir, port and token,
 * started, killed with SIGKILL, restarted on the same port and data dir, and stopped. It keeps the
 * highest resident memory any of its processes reached, and counts the error lines they logged.
 */
import { cliPath, freePort, spawnServer, type RunningServer } from '../../test/support/daemon.js';
import { readPeakRssBytes, resetPeakRss } from '../support/peak-rss.js';

export interface SoakDaemonOptions {
  dataDir: string;
  token: string;
  /** Run the eBPF sensor (it captures the whole host). */
  sensor: boolean;
  /** More daemon options (`--spool-ttl 1h`). */
  args?: string[];
}

/** A start may take this long (a store replaying a large WAL on a busy host); past it, it failed. */
const startTimeoutMs = 60_000;

/** One daemon, over as many processes as it is restarted. */
export class SoakDaemon {
  private server: RunningServer | undefined;
  private boundPort = 0;
  private peakRss = 0;
  /** Processes of this daemon that exited without being asked to (neither killed nor stopped by us). */
  crashes = 0;
  starts = 0;
  /** How long each start took until the daemon listened. */
  readonly startMs: number[] = [];
  /** The log lines of every process started, each list bounded by spawnServer. */
  private readonly logs: Record<string, unknown>[][] = [];
  private expectExit = false;

  constructor(private readonly options: SoakDaemonOptions) {}

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  get token(): string {
    return this.options.token;
  }

  get pid(): number | undefined {
    return this.server?.child.pid;
  }

  /** True while the process runs. */
  get alive(): boolean {
    const child = this.server?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /**
   * Starts a process on the port of the last one (a free port the first time) and waits until it
   * listens. The port is named even the first time, as a user's is: uWS sets SO_REUSEADDR only on
   * a named port, and without it the connections a killed daemon leaves in TIME_WAIT would hold
   * the port for a minute.
   */
  async start(): Promise<void> {
    if (this.boundPort === 0) this.boundPort = await freePort();
    const args = [
      'daemon',
      '--listen',
      `127.0.0.1:${this.boundPort}`,
      '--data-dir',
      this.options.dataDir,
      '--auth-token',
      this.options.token,
      '--record-user',
      'nobody',
      ...(this.options.sensor ? [] : ['--no-sensor']),
      ...(this.options.args ?? []),
    ];
    const { PROVD_AUTH_TOKEN: _token, PROVD_AUTH_TOKEN_FILE: _file, ...env } = process.env;
    this.expectExit = false;
    const started = Date.now();
    const server = await spawnServer(cliPath, args, env, undefined, startTimeoutMs);
    this.startMs.push(Date.now() - started);
    this.server = server;
    this.boundPort = server.port;
    this.starts++;
    this.logs.push(server.logs);
    void server.exited.then(() => {
      if (!this.expectExit) this.crashes++;
    });
  }

  private restarting: Promise<void> | undefined;

  /**
   * Starts the daemon again when its process is gone; concurrent callers share one start. True for
   * the caller whose call started it.
   */
  async ensureRunning(): Promise<boolean> {
    if (this.restarting !== undefined) {
      await this.restarting;
      return false;
    }
    if (this.alive) return false;
    this.restarting = this.start().finally(() => (this.restarting = undefined));
    await this.restarting;
    return true;
  }

  /** Resets the peak-RSS mark of the running process, so the next reading is this phase's own. */
  resetPeak(): void {
    this.notePeak();
    this.peakRss = 0;
    if (this.pid !== undefined) resetPeakRss(this.pid);
  }

  /** The highest RSS seen since the last reset, over every process, the running one included. */
  readPeak(): number {
    this.notePeak();
    return this.peakRss;
  }

  /** SIGKILL, as a crash or an OOM killer would; resolves once the process is gone. */
  async kill9(): Promise<void> {
    this.notePeak();
    this.expectExit = true;
    await this.server?.stop('SIGKILL');
  }

  /** SIGTERM, as a user stops it; resolves with the exit code (null when killed by a signal). */
  async stop(): Promise<number | null> {
    if (this.server === undefined || !this.alive) return this.server?.child.exitCode ?? null;
    this.notePeak();
    this.expectExit = true;
    return this.server.stop('SIGTERM');
  }

  private notePeak(): void {
    const pid = this.pid;
    if (pid === undefined || !this.alive) return;
    this.peakRss = Math.max(this.peakRss, readPeakRssBytes(pid) ?? 0);
  }

  /** Log lines at level error or fatal, over every process so far. */
  errorLines(): Record<string, unknown>[] {
    return this.logs.flat().filter((entry) => entry['level'] === 'error' || entry['level'] === 'fatal');
  }
}
