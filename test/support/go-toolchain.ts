/**
 * The Go toolchains the sensor's tests build Go programs with: the system's `go` (Debian 12: 1.19,
 * older than the range whose TLS is captured), each version inside it (1.23 to 1.26), and 1.27,
 * newer than it; .ci/fetch-go puts all but the system's in .cache/ as root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Go versions inside the supported range, each of which .ci/fetch-go fetches. */
export const supportedGoVersions = ['1.23', '1.24', '1.25', '1.26'];

/** A Go version newer than the supported range, which .ci/fetch-go fetches too. */
export const newerGoVersion = '1.27';

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
 * the standard library is not compiled again by the next test.
 */
const goCache = fileURLToPath(new URL('../../../.cache/gocache', import.meta.url));

/**
 * Builds the Go program `source` (one file, standard library only) into `output` with `go`, in
 * `work`, never fetching a toolchain or module. Returns the toolchain's version.
 */
export function buildGo(go: string, source: string, output: string, work: string): string {
  const env = {
    ...process.env,
    GOCACHE: goCache,
    GOPATH: join(work, 'gopath'),
    GOTOOLCHAIN: 'local',
    GOFLAGS: '-mod=mod',
    GOPROXY: 'off',
  };
  execFileSync(go, ['build', '-o', output, source], {
    cwd: work,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return execFileSync(go, ['env', 'GOVERSION'], { env, encoding: 'utf8' }).trim();
}
