import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertErrors,
  bindCall,
  changingScript,
  contextToken,
  getOk,
  pageThrough,
  recordCall,
  resetFiles,
  sha,
} from '../support/context.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';

interface Entry {
  hash: string;
  kind: string;
  index: number | null;
  parents: string[];
  tool_call_id: string | null;
  summary: string;
}

interface Link {
  relation: string;
  hash: string;
  stored: boolean;
  kind: string | null;
}

const unknownHash = 'sha256:' + '0'.repeat(64);
describe("GET /v1/context/* (a run's application context)", function () {
  const fixture = useDaemonFixture();
  let work = '';
  beforeEach(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-context-'));
  });
  afterEach(function () {
    rmSync(work, { recursive: true, force: true });
  });

  /** run-ctx: an executed tool call that fails (outputs, three file effects), an asserted one, an AI binding. */
  /** Returns when the first tool call started. */
  async function fillRun(daemon: RunningDaemon, cwd = work): Promise<string> {
    resetFiles(cwd);
    const args = ['-c', changingScript(3)];
    const first = await recordCall(daemon, {
      run_id: 'run-ctx',
      tool_call_id: 't1',
      command: 'sh',
      args,
      cwd,
    });
    await recordCall(daemon, {
      run_id: 'run-ctx',
      tool_call_id: 't2',
      command: 'make',
      args: ['test'],
      execute: false,
    });
    await bindCall(daemon, {
      run_id: 'run-ctx',
      tool_call_id: 'tc-agent',
      pid: 4242,
      binding_source: 'ai_asserted',
    });
    return String(first['started_at']);
  }

  /** Every context entry of run-ctx, with the query's other parameters. */
  async function entriesOf(daemon: RunningDaemon, query: string): Promise<Entry[]> {
    const entries = await pageThrough(daemon, `/v1/context/entries?run=run-ctx${query}`, 'entries');
    return entries as unknown as Entry[];
  }

  it('serves each object as stored, its hash recomputed, and says when the stored bytes were altered', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    await fillRun(daemon);
    const entries = await entriesOf(daemon, '');
    for (const entry of entries) {
      const content = await getOk(daemon, `/v1/context/content?hash=${entry.hash}`);
      const body = String(content['body']);
      assert.equal(sha(body), entry.hash, 'the stored bytes hash to the address');
      assert.deepEqual(
        [content['recomputed_hash'], content['hash_ok'], content['well_formed']],
        [entry.hash, true, true],
      );
      assert.deepEqual(content['payload'], (JSON.parse(body) as { payload: unknown }).payload);
      assert.deepEqual([content['kind'], content['parents']], [entry.kind, entry.parents]);
    }
    const call = entries.find((entry) => entry.kind === 'tool_call')!;
    await daemon.stop();
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      await connection.run(
        `UPDATE objects SET body = replace(body, '"exit_code":3', '"exit_code":0') WHERE hash = '${call.hash}'`,
      );
    });
    const restarted = await fixture.start({ authToken: contextToken });
    const altered = await getOk(restarted, `/v1/context/content?hash=${call.hash}`);
    assert.equal(altered['hash_ok'], false);
    assert.equal(altered['recomputed_hash'], sha(String(altered['body'])));
    assert.notEqual(altered['recomputed_hash'], call.hash);
    assert.equal((altered['payload'] as { exit_code: number }).exit_code, 0);
  });

  describe('of run-ctx filled once', function () {
    // these tests only read run-ctx: one daemon, and the run filled once before them
    const shared = useSharedDaemon({ authToken: contextToken });
    let cwd = '';
    let started = '';
    before(async function () {
      cwd = mkdtempSync(join(tmpdir(), 'provd-context-'));
      started = await fillRun(shared.daemon, cwd);
    });
    after(function () {
      if (cwd !== '') rmSync(cwd, { recursive: true, force: true });
    });

    it('sums up the run: its chain, tool calls, bindings, artifacts and file effects', async function () {
      const { daemon } = shared;
      const overview = await getOk(daemon, '/v1/context/overview?run=run-ctx');
      const entries = await entriesOf(daemon, '');
      const { updated_at: updated, ...chain } = overview['chain'] as Record<string, unknown>;
      assert.deepEqual(chain, { head: entries.at(-1)!.hash, length: entries.length - 1 });
      assert.equal(typeof updated, 'string');
      assert.equal(overview['run_object'], entries[0]!.hash);
      const {
        first_started_at: first,
        last_ended_at: last,
        ...calls
      } = overview['tool_calls'] as Record<string, unknown>;
      assert.deepEqual(calls, {
        total: 2,
        by_status: { failed: 1, asserted: 1 },
        by_evidence_level: { self_observed: 1, context_asserted: 1 },
      });
      assert.equal(first, started);
      assert.ok(String(last) > String(first));
      assert.deepEqual(overview['bindings'], {
        total: 2,
        by_source: { control_plane: 1, ai_asserted: 1 },
        tool_calls_bound: 2,
      });
      assert.deepEqual(overview['artifacts'], { count: 2, bytes: 6, stored_bytes: 6, truncated: 0 });
      assert.deepEqual(overview['file_effects'], {
        count: 3,
        by_effect: { created: 1, modified: 1, deleted: 1 },
        incomplete_tool_calls: 0,
        omitted: 0,
      });
      assert.ok(String(overview['first_recorded_at']) <= String(overview['last_recorded_at']));
    });

    it('pages the run object and its context chain in chain order, each linked to the one before', async function () {
      const { daemon } = shared;
      const entries = await entriesOf(daemon, '&limit=3');
      assert.deepEqual(
        entries.map((entry) => [entry.kind, entry.index, entry.tool_call_id]),
        [
          ['run', null, null],
          ['binding', 0, 't1'],
          ['tool_call', 1, 't1'],
          ['artifact', 2, 't1'],
          ['artifact', 3, 't1'],
          ['file_effect', 4, 't1'],
          ['file_effect', 5, 't1'],
          ['file_effect', 6, 't1'],
          ['tool_call', 7, 't2'],
          ['binding', 8, 'tc-agent'],
        ],
      );
      entries
        .slice(1)
        .forEach((entry, i) =>
          assert.equal(entry.parents[0], entries[i]!.hash, `${entry.kind} ${entry.index}`),
        );
      assert.match(entries[2]!.summary, /^tool call t1: sh -c .* \(failed, exit 3, /);
      assert.deepEqual(
        entries.filter((entry) => entry.kind === 'file_effect').map((entry) => entry.summary),
        ['modified change.txt (8 bytes)', 'deleted gone.txt (4 bytes)', 'created made.txt (4 bytes)'],
      );
      const effects = await entriesOf(daemon, '&kind=file_effect&limit=2');
      assert.deepEqual(
        effects.map((entry) => entry.hash),
        entries.filter((entry) => entry.kind === 'file_effect').map((entry) => entry.hash),
      );
      const first = await getOk(daemon, '/v1/context/entries?run=run-ctx&kind=tool_call&limit=1');
      await assertErrors(daemon, [
        [`/v1/context/entries?run=run-ctx&cursor=${String(first['next_cursor'])}`, 400, 'invalid_cursor'],
      ]);
    });

    it("links an object to its parents and to its run's objects that name it", async function () {
      const { daemon } = shared;
      const entries = await entriesOf(daemon, '');
      const [run, binding, call] = entries as [Entry, Entry, Entry];
      const links = await getOk(daemon, `/v1/context/links?hash=${call.hash}`);
      assert.equal((links['object'] as Entry).hash, call.hash);
      assert.deepEqual(
        (links['parents'] as Link[]).map((link) => [link.relation, link.hash, link.kind, link.stored]),
        [
          ['previous', binding.hash, 'binding', true],
          ['binding', binding.hash, 'binding', true],
        ],
      );
      // checkpoints may name the tool call as a chain head: they come and go with the checkpoint rounds
      const children = (links['children'] as Link[]).filter((link) => link.kind !== 'checkpoint');
      assert.deepEqual(
        children.map((link) => [link.kind, link.relation, link.hash]),
        [
          ['artifact', 'previous', entries[3]!.hash],
          ['artifact', 'tool_call', entries[3]!.hash],
          ['artifact', 'tool_call', entries[4]!.hash],
          ...entries.slice(5, 8).map((entry) => ['file_effect', 'tool_call', entry.hash]),
        ],
      );
      assert.ok(Number(links['children_total']) >= children.length);
      const root = await getOk(daemon, `/v1/context/links?hash=${run.hash}`);
      assert.deepEqual(root['parents'], []);
      assert.deepEqual(
        (root['children'] as Link[])
          .filter((link) => link.kind === 'binding')
          .map((link) => [link.relation, link.hash]),
        [['previous', binding.hash]],
      );
    });

    it('refuses missing or malformed parameters, unknown runs and objects, and foreign cursors', async function () {
      const { daemon } = shared;
      await assertErrors(daemon, [
        ['/v1/context/overview', 400, 'invalid_argument'],
        ['/v1/context/overview?run=nope', 404, 'run_not_found'],
        ['/v1/context/entries?run=nope', 404, 'run_not_found'],
        ['/v1/context/entries?run=run-ctx&kind=event', 400, 'invalid_argument'],
        ['/v1/context/entries?run=run-ctx&limit=0', 400, 'invalid_argument'],
        ['/v1/context/entries?run=run-ctx&cursor=%%%', 400, 'invalid_cursor'],
        ['/v1/context/entries?run=run-ctx&cursor=eyJ2IjoxfQ', 400, 'invalid_cursor'],
        ['/v1/context/content', 400, 'invalid_argument'],
        ['/v1/context/content?hash=sha256:ABC', 400, 'invalid_argument'],
        [`/v1/context/content?hash=${unknownHash}`, 404, 'not_found'],
        ['/v1/context/links?hash=' + '0'.repeat(64), 400, 'invalid_argument'],
        [`/v1/context/links?hash=${unknownHash}`, 404, 'not_found'],
      ]);
      const empty = await getOk(daemon, '/v1/context/entries?run=run-ctx&kind=artifact&limit=1000');
      assert.equal(empty['count'], 2);
    });
  });
});
