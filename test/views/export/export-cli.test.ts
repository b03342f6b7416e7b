import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeTar } from '../../../src/shared/tar/tar-writer.js';
import { runCli } from '../../support/cli.js';
import { useSharedDaemon } from '../../support/daemon.js';
import { useTempDir } from '../../support/temp-dir.js';
import { seedRun } from './export-support.js';

/** 256 MiB: the daemon's cap on an export archive, which the CLI reads no more than. */
const exportCap = 256 * 1024 * 1024;

/**
 * A server at --url that is not provd: every GET answers 200 with `type` and `body` (bytes, or a
 * count of zero bytes streamed in 1 MiB chunks, chunked, until the client stops reading).
 */
async function hostileServer(
  type: string,
  body: Uint8Array | number,
): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': type });
    if (typeof body !== 'number') return void response.end(body);
    const chunk = Buffer.alloc(1024 * 1024);
    let sent = 0;
    let closed = false;
    response.on('close', () => (closed = true));
    const pump = (): void => {
      while (!closed && sent < body) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!closed) response.end();
    };
    pump();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('provd export writes only an export, only under --out', function () {
  const shared = useSharedDaemon({ args: ['--host-name', 'Test-Host'] });
  const work = useTempDir('provd-export-cli-');
  const servers: Server[] = [];

  before(async function () {
    await seedRun(shared.daemon.url, 'run-a', '821', 6);
  });

  afterEach(function () {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses a directory link planted under --out, writing nothing through it', async function () {
    const out = join(work.path, 'out');
    const elsewhere = join(work.path, 'elsewhere');
    mkdirSync(out);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, 'host=test-host'));
    const exported = await runCli(['export', 'run-a', '--out', out, '--url', shared.daemon.url]);
    assert.equal(exported.code, 1, exported.stderr);
    assert.match(exported.stderr, /PROVD_ERR_EXPORT_LINK: .*host=test-host is a link/);
    assert.deepEqual(readdirSync(elsewhere), []);
  });

  it('refuses a file link planted where the export writes a file, creating nothing', async function () {
    const out = join(work.path, 'out');
    const dir = join(out, 'host=test-host', 'date=2026-01-01', 'run=run-a');
    mkdirSync(dir, { recursive: true });
    const target = join(work.path, 'planted.parquet');
    symlinkSync(target, join(dir, 'events.parquet'));
    const exported = await runCli(['export', 'run-a', '--out', out, '--url', shared.daemon.url]);
    assert.equal(exported.code, 1, exported.stderr);
    assert.match(exported.stderr, /PROVD_ERR_EXPORT_EXISTS: .*events\.parquet exists/);
    assert.equal(existsSync(target), false);
    // refused before anything was written
    assert.deepEqual(readdirSync(dir), ['events.parquet']);
  });

  it('refuses a file link in place of a directory on the way', async function () {
    const out = join(work.path, 'out');
    mkdirSync(join(out, 'host=test-host'), { recursive: true });
    writeFileSync(join(work.path, 'a-file'), 'mine');
    symlinkSync(join(work.path, 'a-file'), join(out, 'host=test-host', 'date=2026-01-01'));
    const exported = await runCli(['export', 'run-a', '--out', out, '--url', shared.daemon.url]);
    assert.equal(exported.code, 1, exported.stderr);
    assert.match(exported.stderr, /PROVD_ERR_EXPORT_LINK: .*date=2026-01-01 is a link/);
    assert.equal(readFileSync(join(work.path, 'a-file'), 'utf8'), 'mine');
  });

  it("stops reading an answer past the daemon's export cap and says so", async function () {
    const { url, server } = await hostileServer('application/x-tar', exportCap + 16 * 1024 * 1024);
    servers.push(server);
    const out = join(work.path, 'out');
    const exported = await runCli(['export', 'run-a', '--out', out, '--url', url]);
    assert.equal(exported.code, 1, exported.stderr);
    assert.match(exported.stderr, /PROVD_ERR_CLI_TOO_LARGE: .*over 268435456 bytes \(256 MiB\)/);
    assert.equal(existsSync(out), false);
  });

  it('refuses an answer that is not an export rather than exporting nothing', async function () {
    const out = join(work.path, 'out');
    const zeros = await hostileServer('application/x-tar', 1024 * 1024);
    servers.push(zeros.server);
    const blank = await runCli(['export', 'run-a', '--out', out, '--url', zeros.url]);
    assert.equal(blank.code, 1, blank.stderr);
    assert.match(blank.stderr, /PROVD_ERR_EXPORT_ARCHIVE/);
    const stray = await hostileServer(
      'application/x-tar',
      writeTar([{ path: 'notes.txt', content: Buffer.from('x') }], 0),
    );
    servers.push(stray.server);
    const other = await runCli(['export', 'run-a', '--out', out, '--url', stray.url]);
    assert.equal(other.code, 1, other.stderr);
    assert.match(other.stderr, /PROVD_ERR_EXPORT_ARCHIVE: the daemon's answer is not a provd export/);
    // an empty archive is no run's export
    const empty = await hostileServer('application/x-tar', writeTar([], 0));
    servers.push(empty.server);
    const none = await runCli(['export', 'run-a', '--out', out, '--url', empty.url]);
    assert.equal(none.code, 1, none.stderr);
    assert.equal(existsSync(out), false);
  });

  it('stops reading a JSON answer past its cap', async function () {
    const { url, server } = await hostileServer('application/json', exportCap + 16 * 1024 * 1024);
    servers.push(server);
    const health = await runCli(['health', '--url', url]);
    assert.notEqual(health.code, 0);
    assert.match(health.stderr, /PROVD_ERR_CLI_TOO_LARGE/);
  });
});
