/**
 * `node dist/test/support/warm-go-cache.js`: builds the Go TLS client once with every toolchain the
 * tests build it with (the fetched 1.23 to 1.27, then the system's), one after another, into a
 * scratch directory it removes. What stays is Go's build cache (go-toolchain.ts), where the tests'
 * own builds then find the standard library compiled: a link of about a second instead of ~38 s of
 * CPU per toolchain on a cold cache (a fresh machine). run-suites.mjs runs it beside the parallel
 * phase, at the lowest priority so it takes only the CPU the tests leave idle, and waits for it
 * before the alone phase (a compiler is a Go binary a sensor capturing the host would find).
 * A build that fails is said on stderr; the test that builds the same is the one that fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildGo,
  fetchedGo,
  goTlsClientSource,
  hasFetchedGo,
  newerGoVersion,
  supportedGoVersions,
  systemGo,
} from './go-toolchain.js';

setPriority(19); // this process and the compilers it starts: only what the tests leave idle
const toolchains = [...supportedGoVersions, newerGoVersion].filter(hasFetchedGo).map(fetchedGo);
const system = systemGo();
if (system !== undefined) toolchains.push(system);
const work = mkdtempSync(join(tmpdir(), 'provd-go-warm-'));
try {
  for (const [index, go] of toolchains.entries()) {
    try {
      await buildGo(go, goTlsClientSource, join(work, `client-${index}`), work);
    } catch (error) {
      process.stderr.write(`warm-go-cache: ${go} did not build: ${String(error)}\n`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
