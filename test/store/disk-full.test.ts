import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertStopsCleanly,
  makeDataDir,
  removeDir,
  startDaemon,
  type RunningDaemon,
} from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, nativeLine } from '../support/telemetry.js';
import { eventually, softDeadline } from '../support/eventually.js';

const mib = 1024 * 1024;
/**
 * A filesystem small enough to fill in seconds; the filler is what gets freed. Once freed, it must
 * hold the checkpoint the daemon's clean stop writes beside the WAL that filled the disk (about
 * half of it: 10 MiB of 40 was too little once events gained a column, 0.4 MB more of WAL).
 */
const filesystemBytes = 48 * mib;
const fillerBytes = 18 * mib;
const linesPerRequest = 8000;

/** A tmpfs of `bytes` at a fresh directory, or why one cannot be mounted here. */
function mountTmpfs(bytes: number): { dir: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'mounting a small tmpfs needs root; run the tests as root' };
  const dir = makeDataDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    removeDir(dir);
    return {
      skip: `mount -t tmpfs failed: ${error instanceof Error ? error.message.trim() : String(error)}`,
    };
  }
}

function body(request: number): string {
  const pad = 'x'.repeat(40);
  return Array.from({ length: linesPerRequest }, (_v, i) =>
    nativeLine({ comm: `r${request}-${i}${pad}` }),
  ).join('\n');
}

async function health(
  url: string,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const { status, headers, body } = await request(url, '/v1/health');
  return { status, retryAfter: headers.get('retry-after'), body };
}

describe('a full disk under the data dir', function () {
  let mount: string | undefined;
  let daemon: RunningDaemon | undefined;

  afterEach(async function () {
    if (daemon !== undefined) await daemon.stop();
    daemon = undefined;
    if (mount !== undefined) {
      execFileSync('umount', [mount]);
      removeDir(mount);
    }
    mount = undefined;
  });

  it('answers 503 saying the disk is full, with Retry-After, and serves again without a restart once space returns', async function () {
    this.timeout(120_000);
    const mounted = mountTmpfs(filesystemBytes);
    if ('skip' in mounted) {
      process.stderr.write(`      skipped: ${mounted.skip}\n`);
      return this.skip();
    }
    mount = mounted.dir;
    const filler = join(mount, 'filler');
    writeFileSync(filler, Buffer.alloc(fillerBytes));
    const dataDir = join(mount, 'data');
    mkdirSync(dataDir);
    daemon = await startDaemon({ dataDir });
    await bind(daemon.url, { run_id: 'run-disk', tool_call_id: 'tc', cgroup_id: '777' });

    let accepted = 0;
    let full: Awaited<ReturnType<typeof request>> | undefined;
    for (let r = 0; r < 100 && full === undefined; r++) {
      const answer = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
        method: 'POST',
        body: body(r),
      });
      if (answer.status === 200) accepted += answer.body['accepted'] as number;
      else full = answer;
    }
    assert.ok(full !== undefined, 'the disk filled up');
    assert.equal(full.status, 503, JSON.stringify(full.body));
    const error = full.body['error'] as { code: string; message: string };
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, /disk under the data dir is full \(PROVD_ERR_STORE_DISK_FULL\)/);
    assert.equal(full.headers.get('retry-after'), '5');

    // while the disk is full, health is 503 naming the full disk (with Retry-After), or 200 once the
    // store could reopen in what space is left; never another failure
    const during = await health(daemon.url);
    if (during.status !== 200) {
      assert.equal(during.status, 503);
      assert.equal(during.retryAfter, '5');
      const database = (during.body['checks'] as Record<string, Record<string, unknown>>)['database'];
      assert.equal(database?.['code'], 'PROVD_ERR_STORE_DISK_FULL', JSON.stringify(database));
    }

    rmSync(filler);
    const url = daemon.url;
    const after = await eventually(
      'health back',
      () => health(url),
      (answer) => answer.status === 200,
      { ...softDeadline, everyMs: 500 },
    );
    assert.equal(after.status, 200, `health is back without a restart: ${JSON.stringify(after.body)}`);
    const again = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      body: body(1000),
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    accepted += again.body['accepted'] as number;

    const coverage = await request(daemon.url, '/v1/telemetry/producer-health?run=run-disk');
    const events = (coverage.body['correlation_coverage'] as Record<string, number>)['events'];
    assert.equal(
      events,
      accepted,
      'the store holds exactly what was answered 200, nothing of the refused request',
    );
    await assertStopsCleanly(daemon);
    daemon = undefined;
  });
});
