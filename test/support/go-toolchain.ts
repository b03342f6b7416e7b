/**
 * The Go toolchains the sensor's tests build Go programs with: the system's `go` (Debian 12: 1.19,
 * older than the range whose TLS is captured), each version inside it (1.23 to 1.26), and 1.27,
 * newer than it; .ci/fetch-go puts all but the system's in .cache/ as root.
 */
import { execFile, execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const execFileAsync = promisify(execFile);

/** The Go versions inside the supported range, each of which .ci/fetch-go fetches. */
export const supportedGoVersions = ['1.23', '1.24', '1.25', '1.26'];

/** A Go version newer than the supported range, which .ci/fetch-go fetches too. */
export const newerGoVersion = '1.27';

/** The Go TLS client the sensor's tests build with each toolchain (standard library only). */
export const goTlsClientSource = fileURLToPath(
  new URL('../../../test/fixtures/sensor/go-tls-client/main.go', import.meta.url),
);

/** Where .ci/fetch-go puts the `go` of `version`. */
export function fetchedGo(version: string): string {
  return fileURLToPath(
    new URL(`../../../.cache/go-${version}/usr/lib/go-${version}/bin/go`, import.meta.url),
  );
}

/** Whether .ci/fetch-go fetched `version`. */
export function hasFetchedGo(version: string): boolean {
  return existsSync(fetchedGo(version));
}

/** The system's `go`, if installed. */
export function systemGo(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * One build cache for every test and toolchain (its keys hold the toolchain's version): built once,
 * the standard library is not compiled again by the next test. It lives in the user's cache
 * directory, not in the clone, so a fresh clone's tests do not compile each toolchain's standard
 * library again (about 35 s of CPU per version); Go's cache is content-addressed and safe to share
 * between runs and clones.
 */
const goCache =
  process.env.XDG_CACHE_HOME !== undefined && process.env.XDG_CACHE_HOME !== ''
    ? join(process.env.XDG_CACHE_HOME, 'provd', 'gocache')
    : process.env.HOME !== undefined && process.env.HOME !== ''
      ? join(process.env.HOME, '.cache', 'provd', 'gocache')
      : fileURLToPath(new URL('../../../.cache/gocache', import.meta.url));

/**
 * Builds the Go program `source` (one file, standard library only) into `output` with `go`, in
 * `work`, never fetching a toolchain or module. Returns the toolchain's version.
 */
export async function buildGo(go: string, source: string, output: string, work: string): Promise<string> {
  const env = {
    ...process.env,
    GOCACHE: goCache,
    GOPATH: join(work, 'gopath'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=mod',
    GOPROXY: 'off',
  };
  const built = execFileAsync(go, ['build', '-o', output, source], { cwd: work, env });
  built.child.stderr?.pipe(process.stderr);
  await built;
  return (await execFileAsync(go, ['env', 'GOVERSION'], { env, encoding: 'utf8' })).stdout.trim();
}

/**
 * Builds of one program with several toolchains, started together and run as many at a time as
 * the host has cores (each compiles its own standard library): a test awaits the build it needs.
 */
export function buildGoAll(
  builds: readonly { name: string; go: string | undefined }[],
  source: string,
  work: string,
): Map<string, Promise<string>> {
  const slots = new Semaphore(availableParallelism());
  const started = new Map<string, Promise<string>>();
  for (const { name, go } of builds) {
    if (go === undefined) continue;
    const version = slots.run(() => buildGo(go, source, join(work, name), work));
    version.catch(() => undefined); // a build a skipped test never awaits fails no one
    started.set(name, version);
  }
  return started;
}

/** Runs at most `free` tasks at once. */
class Semaphore {
  private readonly waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}
