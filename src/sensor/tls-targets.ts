/**
 * Finds the TLS libraries and binaries processes run (libssl, a binary that links OpenSSL
 * statically such as node, a Go binary) and attaches the TLS probes to each. A uprobe belongs to a
 * file, not a process: one attach covers every process that maps the file, now or later. Scans
 * read only processes not seen before, are coalesced (one at a time, one more queued at most) and
 * rate-limited, and stay within a process and a target budget. A target whose plaintext cannot be
 * captured (a Go version outside the supported range, a stripped Go binary, one past the budget) is
 * reported, and counted as a coverage gap once.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { arch } from 'node:os';
import { log } from '../shared/log.js';
import type { NativeUprobe, NativeUprobeReport } from './binding.js';
import { goMinor, readElfFacts, readFunctionCode, type ElfFacts } from './elf-file.js';
import type { Loss } from './loss-records.js';
import { decodeFunction } from './x86-instructions.js';

export interface TlsBudgets {
  /** Targets attached or reported, in all. */
  maxTargets: number;
  /** New processes read per scan; the others wait for the next. */
  maxProcessesPerScan: number;
  /** Files examined (ELF read) per scan. */
  maxFilesPerScan: number;
  /** Least time between two scans. */
  minScanIntervalMs: number;
}

/** Processes remembered as scanned before /proc is read to forget those that ended. */
const maxSeenPids = 4096;

export const defaultTlsBudgets: TlsBudgets = {
  maxTargets: 64,
  maxProcessesPerScan: 512,
  maxFilesPerScan: 64,
  minScanIntervalMs: 2000,
};

/** One target in the capability report. */
export interface TlsTargetReport {
  path: string;
  kind: 'openssl' | 'go';
  status: 'attached' | 'degraded';
  /** Why not attached, or what is missing. */
  reason: string | null;
  go_version: string | null;
}

/**
 * Where the system's libssl is looked for at start, before any process maps it: probed then, it
 * covers the first call of a process that starts later and ends before a scan would find it.
 */
const libraryDirs = ['/lib', '/lib64', '/usr/lib', '/usr/lib64', '/usr/local/lib'].flatMap((dir) => [
  dir,
  `${dir}/${arch() === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`,
]);
const libssl = /^libssl\.so(\.\d+)*$/;

/** The Go versions whose ABIInternal register use the Go probes are written for. */
const supportedGo = { min: 23, max: 26 };

const openSslFunctions = ['SSL_write', 'SSL_read', 'SSL_write_ex', 'SSL_read_ex'] as const;
/** Go's TLS functions, and the programs of each (`_enter` at its entry, `_return` at each RET). */
const goFunctions = new Map([
  ['crypto/tls.(*Conn).Write', 'provd_go_tls_write'],
  ['crypto/tls.(*Conn).Read', 'provd_go_tls_read'],
]);
const goWrite = 'crypto/tls.(*Conn).Write';
/** A Go function is read whole to find its returns; a larger one is refused (Read is ~1 KiB). */
const maxGoFunctionBytes = 64 * 1024;

/** The uprobes of one OpenSSL function: its entry keeps the call, its return sends the plaintext. */
function openSslProbes(symbol: string, offset: number): NativeUprobe[] {
  const program = `provd_${symbol.toLowerCase()}`;
  return [
    { program: `${program}_enter`, where: symbol, offset, retprobe: false },
    { program: `${program}_exit`, where: symbol, offset, retprobe: true },
  ];
}

type Attach = (binary: string, probes: NativeUprobe[]) => Promise<NativeUprobeReport[]>;

export class TlsTargets {
  /** By file (device and inode): its report, or null when it is no TLS target. */
  private readonly files = new Map<string, TlsTargetReport | null>();
  private readonly seenPids = new Set<number>();
  /** Processes a batch came from, not scanned yet (scan(pids)). */
  private readonly wanted = new Set<number>();
  /** Set when the next scan reads every process in /proc (scan() without pids). */
  private wholeProc = false;
  private readonly losses: Loss[] = [];
  private running: Promise<void> | null = null;
  private again = false;
  private lastScanMs = 0;
  private stopped = false;

  constructor(
    private readonly attach: Attach,
    private readonly budgets: TlsBudgets = defaultTlsBudgets,
    private readonly procRoot = '/proc',
  ) {}

  /**
   * Probes the system's libssl and node (this process's binary), then, with `wholeHost` (capture
   * host), scans every process now; later scans run when the sensor sees new activity (scan()), never
   * on an idle timer. Under capture agents a process is scanned once a batch comes from it: reading
   * the whole host at start would report targets (an unsupported Go, a coverage gap) of processes
   * nothing captures.
   */
  async start(wholeHost: boolean): Promise<void> {
    for (const path of [process.execPath, ...(await systemLibssl())]) {
      const key = await fileKey(path);
      if (key === null || this.files.has(key)) continue;
      this.files.set(key, null);
      this.files.set(key, await this.examine(path, path));
    }
    if (wholeHost) return this.scan();
  }

  /** Ends scanning: a scan asked for later does nothing. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Scans the processes not seen yet, at most once every minScanIntervalMs; a scan asked for while
   * one runs or waits runs once after it. With `pids` (capture agents: the processes a batch of
   * captured records came from), only those; without, every process in /proc. Under capture agents
   * only bound processes are captured, so their targets are the ones that matter, and a host's own
   * activity (a build beside the agent, hundreds of new processes a second) costs no reads of /proc.
   */
  scan(pids?: Iterable<number>): Promise<void> {
    if (pids === undefined) this.wholeProc = true;
    else for (const pid of pids) if (!this.seenPids.has(pid)) this.wanted.add(pid);
    if (this.stopped) return Promise.resolve();
    // no process to read (those a batch came from were read, or have ended): no scan, no timer
    if (this.running === null && this.wanted.size === 0 && !this.wholeProc) return Promise.resolve();
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    const wait = Math.max(0, this.lastScanMs + this.budgets.minScanIntervalMs - Date.now());
    this.running = new Promise((resolve) => setTimeout(resolve, this.lastScanMs === 0 ? 0 : wait))
      .then(() => this.scanOnce())
      .catch((error: unknown) => log('warn', 'a TLS target scan failed', { error: String(error) }))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          // the processes asked for meanwhile wait in `wanted` (or wholeProc is set): scan() without
          // pids would read every process in /proc, the whole host, under capture agents too
          void this.scan([]);
        }
      });
    return this.running;
  }

  report(): TlsTargetReport[] {
    return [...this.files.values()].filter((target): target is TlsTargetReport => target !== null);
  }

  /** Targets reported degraded since the last call, as losses (coverage gaps): each one once. */
  takeLosses(): Loss[] {
    return this.losses.splice(0);
  }

  private async scanOnce(): Promise<void> {
    this.lastScanMs = Date.now();
    let candidates: number[];
    if (this.wholeProc || this.seenPids.size > maxSeenPids) {
      // every process, and those seen that ended are forgotten
      const pids = (await readdir(this.procRoot)).filter((name) => /^\d+$/.test(name)).map(Number);
      const alive = new Set(pids);
      for (const pid of this.seenPids) if (!alive.has(pid)) this.seenPids.delete(pid);
      candidates = this.wholeProc ? pids : [...this.wanted].filter((pid) => alive.has(pid));
      this.wholeProc = false;
    } else candidates = [...this.wanted];
    this.wanted.clear();
    const fresh = candidates.filter((pid) => !this.seenPids.has(pid));
    // past the budget: the next scan
    for (const pid of fresh.splice(this.budgets.maxProcessesPerScan)) this.wanted.add(pid);
    let examined = 0;
    for (const [index, pid] of fresh.entries()) {
      this.seenPids.add(pid);
      for (const [key, path] of await this.mappedFiles(pid)) {
        if (this.files.has(key)) continue;
        // through the process's root: a file of another mount namespace (a container) is found too
        const file = `${this.procRoot}/${pid}/root${path}`;
        if (examined++ >= this.budgets.maxFilesPerScan) {
          this.seenPids.delete(pid); // read again next scan, with those not read yet
          for (const left of fresh.slice(index)) this.wanted.add(left);
          return;
        }
        this.files.set(key, null);
        this.files.set(key, await this.examine(file, path));
      }
    }
  }

  /** The files a process maps executable (its binary and libraries), by device and inode. */
  private async mappedFiles(pid: number): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    let maps: string;
    try {
      maps = await readFile(`${this.procRoot}/${pid}/maps`, 'utf8');
    } catch {
      return files; // gone, or a kernel thread
    }
    for (const line of maps.split('\n')) {
      // address perms offset dev inode path
      const fields = line.split(/\s+/);
      const path = fields.slice(5).join(' ');
      if (fields[1]?.[2] === 'x' && path.startsWith('/') && !path.endsWith(' (deleted)'))
        files.set(`${fields[3]}:${fields[4]}`, path);
    }
    return files;
  }

  /** Whether a file is a TLS target, and what attaching to it gave. */
  private async examine(file: string, path: string): Promise<TlsTargetReport | null> {
    let facts: ElfFacts;
    try {
      facts = await readElfFacts(file, [...openSslFunctions, ...goFunctions.keys()]);
    } catch {
      return null; // not an ELF file we can read: no target
    }
    const go = facts.goVersion;
    const openssl = facts.symbols.has('SSL_write') && facts.symbols.has('SSL_read');
    if (!openssl && go === null) return null;
    if (!openssl && go !== null && !facts.symbols.has(goWrite) && facts.hasSymtab) return null; // no crypto/tls
    const target: TlsTargetReport = {
      path,
      kind: openssl ? 'openssl' : 'go',
      status: 'degraded',
      reason: null,
      go_version: go,
    };
    if (this.report().length >= this.budgets.maxTargets) {
      target.reason = `over the budget of ${this.budgets.maxTargets} TLS targets`;
      this.losses.push({
        kind: 'tls_over_budget',
        probe: `tls_${target.kind}`,
        count: 1,
        detail: `${path}: ${target.reason}`,
      });
      return target;
    }
    target.reason = openssl ? await this.attachOpenSsl(file, facts) : await this.attachGo(file, facts);
    if (target.reason === null) target.status = 'attached';
    else
      this.losses.push({
        kind: 'tls_unsupported',
        probe: `tls_${target.kind}`,
        count: 1,
        detail: `${path}: ${target.reason}`,
      });
    return target;
  }

  /** Attaches the OpenSSL probes; null when every function the file has is probed, else why not. */
  private async attachOpenSsl(file: string, facts: ElfFacts): Promise<string | null> {
    const probes = openSslFunctions.flatMap((symbol) => {
      const code = facts.symbols.get(symbol);
      return code === undefined ? [] : openSslProbes(symbol, code.offset);
    });
    return this.attachAll(file, probes);
  }

  /**
   * Attaches the Go probes: each function's entry, and each of its RET instructions, found by
   * decoding its code (a probe off an instruction's first byte would corrupt the program, so a
   * function that does not decode is not probed). Null when all attached, else why not.
   */
  private async attachGo(file: string, facts: ElfFacts): Promise<string | null> {
    const unsupported = goUnsupported(facts);
    if (unsupported !== null) return unsupported;
    const probes: NativeUprobe[] = [];
    for (const [symbol, program] of goFunctions) {
      const code = facts.symbols.get(symbol);
      if (code === undefined) continue;
      let returns: number[];
      try {
        returns = decodeFunction(await readFunctionCode(file, code, maxGoFunctionBytes)).returns;
      } catch (error) {
        return `${symbol}: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (returns.length === 0) return `${symbol} has no RET instruction to probe`;
      probes.push(
        { program: `${program}_enter`, where: symbol, offset: code.offset, retprobe: false },
        ...returns.map((at) => ({
          program: `${program}_return`,
          where: `${symbol}+0x${at.toString(16)}`,
          offset: code.offset + at,
          retprobe: false,
        })),
      );
    }
    return this.attachAll(file, probes);
  }

  /** Null when every probe attached, else the errors of those that did not. */
  private async attachAll(file: string, probes: NativeUprobe[]): Promise<string | null> {
    const reports = await this.attach(file, probes);
    const failed = reports.filter((report) => !report.attached);
    return failed.length === 0 ? null : failed.map((report) => report.error).join('; ');
  }
}

/** Why a Go binary's TLS cannot be captured; null when it can. */
function goUnsupported(facts: ElfFacts): string | null {
  const version = facts.goVersion!;
  if (!facts.hasSymtab && !facts.symbols.has(goWrite))
    return `a stripped Go binary (${version}): crypto/tls cannot be found without its symbols`;
  const minor = goMinor(version);
  if (minor === null || minor < supportedGo.min || minor > supportedGo.max)
    return `${version} is outside the supported Go range 1.${supportedGo.min} to 1.${supportedGo.max}`;
  if (arch() !== 'x64') return `Go TLS capture is built for amd64 only, not ${arch()}`;
  return null;
}

/** The libssl files of the system's library directories, by their real paths. */
async function systemLibssl(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of libraryDirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((name) => libssl.test(name)))
      found.push(await realpath(`${dir}/${name}`).catch(() => `${dir}/${name}`)); // as processes map it
  }
  return [...new Set(found)];
}

/** A file's key as /proc/PID/maps writes it (device major:minor in hex, then inode); null for no file. */
async function fileKey(path: string): Promise<string | null> {
  try {
    const found = await stat(path);
    if (!found.isFile()) return null;
    // Linux's dev_t: the minor in bits 0-7 and 20-31, the major in bits 8-19 and 32 up
    const major = ((found.dev >> 8) & 0xfff) | (Math.floor(found.dev / 2 ** 32) & ~0xfff);
    const minor = (found.dev & 0xff) | ((found.dev >> 12) & ~0xff & 0xfffff);
    const hex = (value: number): string => value.toString(16).padStart(2, '0');
    return `${hex(major)}:${hex(minor)}:${found.ino}`;
  } catch {
    return null;
  }
}
