import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compareSnapshots,
  defaultSnapshotLimits,
  snapshot,
} from '../../src/provenance/record/file-effects.js';
import { runCli } from '../support/cli.js';
import { cliPath, startDaemon, useSharedDaemon } from '../support/daemon.js';
import { pageItems, request } from '../support/http.js';

const token = 'record-partial-token';
const auth = { authorization: `Bearer ${token}` };

interface Entry {
  kind: string;
  summary: string;
  tool_call_id: string | null;
  object?: { path: string; effect: string };
  tool_call?: { object_hash: string };
}

/**
 * The reason of a cut at 20,000 files, or, on a machine slow enough, of hashing stopped at its 10 s
 * before the cut (it then compares the files left unhashed by size, mtime and inode: still no
 * false effect, which is what these tests are about).
 */
const cutReason = /^(more than 20000 files under cwd|hashing stopped after 10000 ms: [^;]+)$/;

/** 25 directories `d00`..`d24` of 1,000 files `0000`..`0999` each: past the snapshot's 20,000 files. */
function writeTree(root: string): void {
  for (let d = 0; d < 25; d++) {
    const dir = join(root, `d${String(d).padStart(2, '0')}`);
    mkdirSync(dir);
    for (let f = 0; f < 1000; f++) {
      const name = String(f).padStart(4, '0');
      writeFileSync(join(dir, name), `${dir}/${name}\n`);
    }
  }
}

/** The run's timeline, every page, as the daemon stored it. */
function timeline(url: string, run: string): Promise<Entry[]> {
  return pageItems<Entry>(url, `/v1/timeline?run=${run}&view=table`, 'entries', 1000, auth);
}

/** `[path, effect]` of the file effects the run's timeline holds for one tool call. */
function storedEffects(entries: Entry[], toolCall: string): string[][] {
  return entries
    .filter((entry) => entry.kind === 'file_effect' && entry.tool_call_id === toolCall)
    .map((entry) => [entry.object!.path, entry.object!.effect])
    .sort();
}

describe('file effects of a snapshot cut short', function () {
  describe('provd record in a cwd larger than its snapshots', function () {
    // 25,000 files written and snapshotted twice per record, on a machine shared with other builds
    this.timeout(180_000);
    const shared = useSharedDaemon({ authToken: token });
    let work = '';
    beforeEach(function () {
      work = mkdtempSync(join(tmpdir(), 'provd-record-partial-'));
      writeTree(work);
    });
    afterEach(function () {
      rmSync(work, { recursive: true, force: true });
    });

    it('stores exactly the file created and the file deleted among 25,000, nothing a cut snapshot did not reach', async function () {
      const { status, body } = await request(shared.daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: 'run-partial',
          tool_call_id: 'tc-inside',
          command: 'sh',
          args: ['-c', 'echo x > new.txt; rm d10/0500'],
          cwd: work,
        }),
      });
      assert.equal(status, 200, JSON.stringify(body));
      const expected = [
        ['d10/0500', 'deleted'],
        ['new.txt', 'created'],
      ];
      const answered = (body['file_effects'] as { path: string; effect: string }[]).map((e) => [
        e.path,
        e.effect,
      ]);
      assert.deepEqual(answered.sort(), expected);
      assert.equal(body['file_effects_complete'], false);
      assert.match(String(body['file_effects_incomplete_reason']), cutReason);
      // what was stored, read back: the same two effects, no more
      const entries = await timeline(shared.daemon.url, 'run-partial');
      assert.deepEqual(storedEffects(entries, 'tc-inside'), expected);
      const compared = body['file_effects_compared'] as { not_compared: { path: string }[] };
      assert.ok(
        compared.not_compared.every((part) => part.path !== 'd10' && part.path !== '.'),
        JSON.stringify(compared),
      );
    });

    it('claims nothing of a deletion outside the part compared, and says which part was not compared', async function () {
      const ran = await runCli(
        [
          'record',
          '--run',
          'run-outside',
          '--tool-call',
          'tc-outside',
          '--',
          'sh',
          '-c',
          'echo x > new.txt; rm d00/0001',
        ],
        { env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token }, cwd: work },
      );
      assert.equal(ran.code, 0, ran.stderr);
      // the snapshots walk the directories last name first: d00 to d04 were reached by neither, and
      // the one before (d05) only in part by the second, whose cut came a file earlier (new.txt)
      assert.match(
        ran.stderr,
        /completed, exit 0, file effects incomplete \(1 found\): (more than 20000 files under cwd|hashing stopped [^;]+); not compared: d00, d01, d02, d03, d04 and 1 more[;( ]/,
      );
      const entries = await timeline(shared.daemon.url, 'run-outside');
      assert.deepEqual(storedEffects(entries, 'tc-outside'), [['new.txt', 'created']]);
      // the stored tool call says the part not compared, and the timeline says it beside it and its effects
      const call = entries.find((entry) => entry.kind === 'tool_call')!;
      assert.match(
        call.summary,
        /; file effects incomplete: compared only part of cwd, not d00, d01, d02 and 3 more(;|$)/,
      );
      const effect = entries.find((entry) => entry.kind === 'file_effect')!;
      assert.match(effect.summary, /^created new\.txt \(2 bytes\); incomplete: compared only part of cwd$/);
      const stored = await request(
        shared.daemon.url,
        `/v1/context/content?hash=${encodeURIComponent(call.tool_call!.object_hash)}`,
        { headers: auth },
      );
      const payload = stored.body['payload'] as { file_effects_compared: Record<string, unknown> };
      const { compared_by_metadata: _unhashed, ...compared } = payload.file_effects_compared;
      assert.deepEqual(compared, {
        not_compared: [
          { path: 'd00', from: null, reason: 'file_limit' },
          { path: 'd01', from: null, reason: 'file_limit' },
          { path: 'd02', from: null, reason: 'file_limit' },
          { path: 'd03', from: null, reason: 'file_limit' },
          { path: 'd04', from: null, reason: 'file_limit' },
          { path: 'd05', from: '0999', reason: 'file_limit' },
        ],
        not_compared_omitted: 0,
      });
    });
  });

  describe('provd record where a command makes part of its cwd unreadable', function () {
    it('claims no deletion under a directory the second snapshot could not read or search, and says so', async function () {
      const nobody = { uid: 65534, gid: 65534 };
      if (process.getuid?.() !== 0) {
        process.stderr.write(
          '      skipped: only root can start the daemon as another user (this run is not root)\n',
        );
        this.skip();
      }
      const readable = spawnSync(
        process.execPath,
        ['-e', `require('fs').accessSync(${JSON.stringify(cliPath)})`],
        nobody,
      );
      if (readable.status !== 0) {
        process.stderr.write(`      skipped: user nobody cannot read ${cliPath}\n`);
        this.skip();
      }
      const dataDir = mkdtempSync(join(tmpdir(), 'provd-record-nobody-'));
      const cwd = mkdtempSync(join(tmpdir(), 'provd-record-locked-'));
      for (const dir of ['locked', 'unsearchable', 'open']) {
        mkdirSync(join(cwd, dir));
        writeFileSync(join(cwd, dir, 'a.txt'), 'a\n');
      }
      for (const path of [
        dataDir,
        cwd,
        ...['locked', 'unsearchable', 'open'].flatMap((d) => [d, `${d}/a.txt`]),
      ])
        chownSync(path.startsWith('/') ? path : join(cwd, path), nobody.uid, nobody.gid);
      // the daemon runs as nobody, so its snapshots read what nobody may; its commands run as nobody too
      const daemon = await startDaemon({ dataDir, authToken: token, identity: nobody, recordUser: null });
      try {
        const { status, body } = await request(daemon.url, '/v1/record', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            command: 'sh',
            // unreadable and unsearchable: readdir fails; readable but unsearchable: each lstat fails
            args: ['-c', 'chmod 000 locked; chmod 600 unsearchable; rm open/a.txt'],
            cwd,
          }),
        });
        assert.equal(status, 200, JSON.stringify(body));
        const effects = (body['file_effects'] as { path: string; effect: string }[]).map((e) => [
          e.path,
          e.effect,
        ]);
        assert.deepEqual(effects, [['open/a.txt', 'deleted']]);
        assert.equal(body['file_effects_complete'], false);
        assert.match(
          String(body['file_effects_incomplete_reason']),
          /^cannot read (locked|unsearchable\/a\.txt): EACCES$/,
        );
        assert.deepEqual(body['file_effects_compared'], {
          not_compared: [
            { path: 'locked', from: null, reason: 'unreadable' },
            { path: 'unsearchable/a.txt', from: null, reason: 'unreadable' },
          ],
          not_compared_omitted: 0,
          compared_by_metadata: 0,
        });
      } finally {
        await daemon.stop();
        chmodSync(join(cwd, 'locked'), 0o700);
        chmodSync(join(cwd, 'unsearchable'), 0o700);
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  });

  describe('a snapshot whose hashing stopped at its time bound', function () {
    let work = '';
    beforeEach(function () {
      work = mkdtempSync(join(tmpdir(), 'provd-record-unhashed-'));
    });
    afterEach(function () {
      rmSync(work, { recursive: true, force: true });
    });

    it('claims a file modified when its size, mtime or inode changed, never for a chmod alone', function () {
      for (const name of ['chmod', 'rewritten', 'replaced', 'same'])
        writeFileSync(join(work, name), `${name}\n`);
      const before = snapshot(work, defaultSnapshotLimits);
      chmodSync(join(work, 'chmod'), 0o600); // its ctime changes, not its content
      writeFileSync(join(work, 'rewritten'), 'REWRITTEN\n'); // same size, later mtime
      utimesSync(join(work, 'rewritten'), new Date(2000, 0, 1), new Date(2000, 0, 1));
      const replaced = statSync(join(work, 'replaced'));
      writeFileSync(join(work, 'replacement'), 'replaced\n'); // another file, with the same size and mtime
      utimesSync(join(work, 'replacement'), replaced.atime, replaced.mtime);
      renameSync(join(work, 'replacement'), join(work, 'replaced'));
      // the second snapshot hashes nothing: its time bound has passed before it starts
      const after = snapshot(work, { ...defaultSnapshotLimits, hashingMs: -1 });
      const found = compareSnapshots(before, after, defaultSnapshotLimits);
      assert.deepEqual(
        found.effects.map((effect) => [effect.path, effect.effect, effect.hash_after]),
        [
          ['replaced', 'modified', null],
          ['rewritten', 'modified', null],
        ],
      );
      assert.match(
        String(found.incomplete_reason),
        /^hashing stopped after -1 ms: later files compared by size, mtime and inode only$/,
      );
      assert.deepEqual(found.compared, {
        not_compared: [],
        not_compared_omitted: 0,
        compared_by_metadata: 4,
      });
    });
  });

  describe('two snapshots cut at different places', function () {
    let work = '';
    beforeEach(function () {
      work = mkdtempSync(join(tmpdir(), 'provd-record-cuts-'));
    });
    afterEach(function () {
      rmSync(work, { recursive: true, force: true });
    });

    it('claims no creation where the first did not reach, and names only the outermost parts not compared', function () {
      // r, then c, then a: the first snapshot stops at one file, r, before c and a
      mkdirSync(join(work, 'a'));
      mkdirSync(join(work, 'a', 'b'));
      mkdirSync(join(work, 'c'));
      for (const file of ['r', 'a/1', 'a/b/3', 'c/5']) writeFileSync(join(work, file), `${file}\n`);
      const before = snapshot(work, { ...defaultSnapshotLimits, maxEntries: 1 });
      rmSync(join(work, 'r'));
      writeFileSync(join(work, 'a', '0'), 'new\n');
      // the second stops at three: c/5, a/0 and a/1, with a/b left unwalked
      const after = snapshot(work, { ...defaultSnapshotLimits, maxEntries: 3 });
      const found = compareSnapshots(before, after, defaultSnapshotLimits);
      // a/0 is new, but so would a/1 and c/5 seem: the first snapshot saw neither a nor c
      assert.deepEqual(
        found.effects.map((effect) => [effect.path, effect.effect]),
        [['r', 'deleted']],
      );
      assert.deepEqual(found.compared, {
        not_compared: [
          { path: 'a', from: null, reason: 'file_limit' },
          { path: 'c', from: null, reason: 'file_limit' },
        ],
        not_compared_omitted: 0,
        compared_by_metadata: 0,
      });
    });
  });

  describe('a filesystem mounted under cwd', function () {
    let work = '';
    beforeEach(function () {
      work = mkdtempSync(join(tmpdir(), 'provd-record-mount-'));
    });
    afterEach(function () {
      spawnSync('umount', [join(work, 'data')]);
      rmSync(work, { recursive: true, force: true });
    });

    it('claims no deletion beneath a directory a command mounted over, and says it was not compared', function () {
      if (process.getuid?.() !== 0) {
        process.stderr.write('      skipped: only root can mount a filesystem (this run is not root)\n');
        this.skip();
      }
      mkdirSync(join(work, 'data'));
      for (const file of ['data/a', 'data/b', 'kept']) writeFileSync(join(work, file), `${file}\n`);
      const before = snapshot(work, defaultSnapshotLimits);
      // what a command's `mount -t tmpfs tmpfs data` does: data/a and data/b are hidden, not gone
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', join(work, 'data')]);
      assert.equal(mounted.status, 0, String(mounted.stderr));
      writeFileSync(join(work, 'new'), 'new\n');
      const after = snapshot(work, defaultSnapshotLimits);
      const found = compareSnapshots(before, after, defaultSnapshotLimits);
      assert.deepEqual(
        found.effects.map((effect) => [effect.path, effect.effect]),
        [['new', 'created']],
      );
      assert.equal(found.complete, false);
      assert.equal(found.incomplete_reason, 'data is another filesystem: not compared');
      assert.deepEqual(found.compared?.not_compared, [
        { path: 'data', from: null, reason: 'other_filesystem' },
      ]);
    });
  });
});
