import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { extractExport } from '../../src/cli/export-files.js';
import { readTar } from '../../src/shared/tar/tar-reader.js';
import { writeTar } from '../../src/shared/tar/tar-writer.js';
import { useTempDir } from '../support/temp-dir.js';

const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** The archive with the first header's type byte set to `type` and its checksum made right again. */
function withType(archive: Buffer, type: string): Buffer {
  const copy = Buffer.from(archive);
  copy.write(type, 156, 'ascii');
  copy.write('        ', 148, 'ascii');
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += copy[i]!;
  copy.write(sum.toString(8).padStart(6, '0') + '\u0000 ', 148, 'ascii');
  return copy;
}

describe('export archives (tar)', function () {
  const work = useTempDir('provd-tar-');

  it('reads back what it wrote, a path past 100 bytes included', function () {
    const long = `host=h/date=2026-01-01/run=${'r'.repeat(180)}/events.parquet`;
    const entries = [
      { path: 'a/b.txt', content: bytes('hello') },
      { path: long, content: new Uint8Array(1000).fill(7) },
      { path: 'empty', content: new Uint8Array() },
    ];
    const archive = writeTar(entries, 0);
    const read = readTar(archive);
    assert.deepEqual(
      read.map((entry) => [entry.path, Buffer.from(entry.content).toString('hex')]),
      entries.map((entry) => [entry.path, Buffer.from(entry.content).toString('hex')]),
    );
  });

  it('writes what GNU tar lists, a PAX path included', function () {
    if (spawnSync('tar', ['--version']).status !== 0) this.skip(); // no tar binary on this host
    const long = `host=h/date=2026-01-01/run=${'r'.repeat(180)}/events.parquet`;
    const file = join(work.path, 'a.tar');
    writeFileSync(
      file,
      writeTar(
        [
          { path: 'short', content: bytes('x') },
          { path: long, content: bytes('y') },
        ],
        0,
      ),
    );
    const listed = spawnSync('tar', ['tf', file], { encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n'), ['short', long]);
  });

  it('refuses absolute paths, ".." segments, links and a broken checksum', function () {
    for (const path of ['/etc/passwd', '../escape', 'a/../../b', 'a//b']) {
      assert.throws(
        () => readTar(writeTar([{ path, content: bytes('x') }], 0)),
        /PROVD_ERR_EXPORT_ARCHIVE|refused/,
        path,
      );
    }
    const link = withType(writeTar([{ path: 'link', content: bytes('') }], 0), '2');
    assert.throws(() => readTar(link), /not a regular file/);
    const broken = writeTar([{ path: 'a', content: bytes('x') }], 0);
    broken[0] = 'b'.charCodeAt(0);
    assert.throws(() => readTar(broken), /checksum/);
  });

  it('refuses an archive cut short, or with bytes after its end marker', function () {
    const archive = writeTar([{ path: 'a', content: bytes('x') }], 0);
    assert.throws(() => readTar(archive.subarray(0, archive.length - 1024)), /end marker/);
    assert.throws(() => readTar(Buffer.concat([archive, bytes('junk')])), /end marker/);
    // zeros: an empty archive with a record's padding is one; a megabyte of them is not
    assert.deepEqual(readTar(new Uint8Array(10240)), []);
    assert.throws(() => readTar(new Uint8Array(1024 * 1024)), /end marker/);
  });

  it('extracts nothing when one entry would overwrite a file', function () {
    const d = 'host=h/date=2026-01-01/run=r';
    mkdirSync(join(work.path, d), { recursive: true });
    writeFileSync(join(work.path, d, 'manifest.json'), 'mine');
    const archive = writeTar(
      [
        { path: `${d}/events.parquet`, content: bytes('1') },
        { path: `${d}/manifest.json`, content: bytes('2') },
      ],
      0,
    );
    assert.throws(() => extractExport(archive, work.path, 'run'), /PROVD_ERR_EXPORT_EXISTS|exists/);
    assert.equal(existsSync(join(work.path, d, 'events.parquet')), false);
    assert.equal(readFileSync(join(work.path, d, 'manifest.json'), 'utf8'), 'mine');
  });
});
