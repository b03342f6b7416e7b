/**
 * The Go toolchains the sensor's tests build Go programs with: the system's `go` (Debian 12: 1.19,
 * outside the range whose TLS is captured) and those inside it (1.23, 1.24), which .ci/fetch-go
 * puts in .cache/ as root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Go versions inside the supported range that .ci/fetch-go fetches. */
export const supportedGoVersions = ['1.23', '1.24'];

/** Where .ci/fetch-go puts the `go` of `version`. */
export function supportedGo(version: string): string {
  return fileURLToPath(
    new URL(`../../../.cache/go-${version}/usr/lib/go-${version}/bin/go`, import.meta.url),
  );
}

/** Whether .ci/fetch-go fetched `version`. */
export function hasSupportedGo(version: string): boolean {
  return existsSync(supportedGo(version));
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
 * Builds the Go program `source` (one file, standard library only) into `output` with `go`, its
 * caches under `work`, never fetching a toolchain or module. Returns the toolchain's version.
 */
export function buildGo(go: string, source: string, output: string, work: string): string {
  const env = {
    ...process.env,
    GOCACHE: join(work, 'gocache'),
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
