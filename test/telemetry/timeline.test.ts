import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCursor, filterDigest } from '../../src/model/cursor.js';
import { assertStopsCleanly, useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';

type Json = Record<string, unknown>;

const seconds = (ms: number, offset: number): string => new Date(ms + offset * 1000).toISOString();
/** An RFC 3339 text with a fraction as answers write it: nine digits. */
const nanos = (text: string): string =>
  text.replace(/\.(\d+)Z$/, (_match, digits: string) => `.${digits.padEnd(9, '0')}Z`);

/** GET /v1/timeline (the answer is checked against the OpenAPI document). */
async function timeline(url: string, query: string, headers: Record<string, string> = {}): Promise<Json> {
  const { status, body } = await request(url, `/v1/timeline?${query}`, { headers });
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

/** Every entry of the table view, page by page. */
async function pageAll(url: string, run: string, limit: number): Promise<Json[]> {
  const entries: Json[] = [];
  let cursor: string | null = null;
  do {
    const after = cursor === null ? '' : `&cursor=${cursor}`;
    const page = await timeline(url, `run=${run}&limit=${limit}${after}`);
    const listed = page['entries'] as Json[];
    assert.equal(page['count'], listed.length);
    assert.ok(listed.length <= limit);
    entries.push(...listed);
    cursor = page['next_cursor'] as string | null;
    assert.equal(page['has_more'], cursor !== null);
  } while (cursor !== null);
  return entries;
}

/** The error code of a refused request, after checking its status. */
async function refused(
  url: string,
  query: string,
  status: number,
): Promise<{ code: string; message: string }> {
  const answer = await request(url, `/v1/timeline?${query}`);
  assert.equal(answer.status, status, `${query}: ${JSON.stringify(answer.body)}`);
  return answer.body['error'] as { code: string; message: string };
}

/** Events counted by type, as the tree writes them. */
interface Counts {
  total: number;
  by_type: Record<string, number>;
}

/** The sum of event counts. */
function sumCounts(parts: readonly Counts[]): Counts {
  const sum: Counts = { total: 0, by_type: {} };
  for (const part of parts) {
    sum.total += part.total;
    for (const [type, n] of Object.entries(part.by_type)) sum.by_type[type] = (sum.by_type[type] ?? 0) + n;
  }
  return sum;
}

/** A process's own events and those cut below it, for it and every process shown under it. */
function subtreeCounts(process: Json): Counts[] {
  const cut = (process['omitted_children'] as { events: Counts }).events;
  return [process['counts'] as Counts, cut, ...(process['children'] as Json[]).flatMap(subtreeCounts)];
}

/** Checks that nothing under a node is lost: its events are those it shows plus those it says were cut. */
function assertConserved(node: Json): void {
  const counts = node['counts'] as Counts;
  const children = node['children'] as Json[];
  if (node['node'] === 'process') {
    // a process counts its own events: those listed and those past the bound
    assert.equal((node['events'] as Json[]).length + (node['omitted_events'] as Counts).total, counts.total);
  } else {
    const shown =
      node['node'] === 'run'
        ? children.map((child) => child['counts'] as Counts)
        : children.flatMap(subtreeCounts);
    const cut = (node['omitted_children'] as { events: Counts }).events;
    assert.deepEqual(sumCounts([...shown, cut]), counts, JSON.stringify(node['tool_call_id']));
  }
  children.forEach(assertConserved);
}

describe('GET /v1/timeline', function () {
  const fixture = useDaemonFixture();
  // tests that read back only their own run (and cgroups) share one daemon
  const shared = useSharedDaemon();

  it('merges bindings, events and an asserted tool call in time order, and pages through each once', async function () {
    const daemon = shared.daemon;
    const run = 'run-tl-merge';
    const recorded = await request(daemon.url, '/v1/record', {
      method: 'POST',
      body: JSON.stringify({
        run_id: run,
        tool_call_id: 'tc-asserted',
        command: 'make',
        args: ['test'],
        execute: false,
      }),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    const now = Date.parse(String(recorded.body['started_at']));
    const at = (offset: number): string => seconds(now, offset);
    // the binding starts at the first events' instant: within an instant, bindings come first
    const binding = await bind(daemon.url, {
      run_id: run,
      tool_call_id: 'tc-1',
      cgroup_id: '777',
      started_at: at(-5),
    });
    const lines = [
      nativeLine({ timestamp: at(-5), pid: 10, tgid: 10, argv: ['sh', '-c', 'x'] }),
      nativeLine({ event_type: 'file_open', timestamp: at(-5), pid: 10, tgid: 10, path: '/work/a' }),
      nativeLine({ event_type: 'file_write', timestamp: at(5), pid: 11, tgid: 11, path: '/work/b' }),
      nativeLine({
        event_type: 'dns_query',
        timestamp: at(6),
        pid: 11,
        tgid: 11,
        path: null,
        query: 'x.test',
      }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);

    const body = await timeline(daemon.url, `run=${run}`);
    assert.equal(body['schema_version'], 'provenance.timeline/v1');
    assert.equal(body['view'], 'table');
    assert.deepEqual(
      [body['limit'], body['count'], body['has_more'], body['next_cursor']],
      [100, 6, false, null],
    );
    const entries = body['entries'] as Json[];
    assert.deepEqual(
      entries.map((entry) => [
        entry['kind'],
        entry['tool_call_id'],
        entry['evidence_level'],
        entry['summary'],
      ]),
      [
        [
          'binding',
          'tc-1',
          'context_asserted',
          'binding of tool call tc-1 (control_plane, confidence 1) on cgroup_id 777',
        ],
        ['event', 'tc-1', 'kernel_correlated', 'sh[10] execve sh -c x'],
        ['event', 'tc-1', 'kernel_correlated', 'sh[10] file_open /work/a'],
        ['tool_call', 'tc-asserted', 'context_asserted', 'tool call tc-asserted: make test (asserted)'],
        ['event', 'tc-1', 'kernel_correlated', 'sh[11] file_write /work/b'],
        ['event', 'tc-1', 'kernel_correlated', 'sh[11] dns_query x.test'],
      ],
    );
    assert.deepEqual(
      entries.map((entry) => entry['time']),
      [at(-5), at(-5), at(-5), String(recorded.body['started_at']), at(5), at(6)].map(nanos),
    );
    // an event entry holds the event exactly as /v1/telemetry/events answers it
    const events = await request(daemon.url, `/v1/telemetry/events?run=${run}`);
    const listed = (events.body['events'] as Json[]).map((event) => [event['id'], event]);
    assert.deepEqual(
      entries.filter((entry) => entry['kind'] === 'event').map((entry) => [entry['id'], entry['event']]),
      listed,
    );
    const [bound, , , call] = entries;
    assert.equal(bound!['id'], binding['binding_id']);
    assert.equal((bound!['binding'] as Json)['cgroup_id'], '777');
    assert.equal((bound!['binding'] as Json)['created_at'], binding['created_at']);
    const toolCall = call!['tool_call'] as Json;
    assert.deepEqual(
      [
        toolCall['status'],
        toolCall['executed'],
        toolCall['command'],
        toolCall['args'],
        toolCall['exit_code'],
      ],
      ['asserted', false, 'make', ['test'], null],
    );
    assert.equal(toolCall['object_hash'], recorded.body['object_hash']);

    const ids = entries.map((entry) => entry['id']);
    for (const limit of [1, 2, 4, 5]) {
      assert.deepEqual(
        (await pageAll(daemon.url, run, limit)).map((entry) => entry['id']),
        ids,
        `limit ${limit}`,
      );
    }
  });

  it('pages through entries of one source at one instant in the order of their ties, each once', async function () {
    const daemon = shared.daemon;
    const run = 'run-tl-ties';
    const at = '2026-01-01T00:00:00Z';
    const ids: string[] = [];
    for (const cgroup of ['701', '702', '703'])
      ids.push(
        String(
          (
            await bind(daemon.url, {
              run_id: run,
              tool_call_id: `tc-${cgroup}`,
              cgroup_id: cgroup,
              started_at: at,
            })
          )['binding_id'],
        ),
      );
    // one entry a page: each page's cursor names the tie the next one starts after
    const entries = await pageAll(daemon.url, run, 1);
    assert.deepEqual(
      entries.map((entry) => entry['id']),
      [...ids].sort(),
    );
  });

  it('lists the artifacts and file effects of an executed tool call after it, as self_observed', async function () {
    const token = 'timeline-token';
    const auth = { authorization: `Bearer ${token}` };
    const daemon = await fixture.start({ authToken: token });
    const run = 'run-tl';
    const work = mkdtempSync(join(tmpdir(), 'provd-timeline-'));
    let recorded: Json;
    try {
      ({ body: recorded } = await request(daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: run,
          tool_call_id: 'tc-run',
          command: 'sh',
          args: ['-c', 'printf out; echo new > made.txt'],
          cwd: work,
        }),
      }));
      assert.equal(recorded['status'], 'completed', JSON.stringify(recorded));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const entries = (await timeline(daemon.url, `run=${run}`, auth))['entries'] as Json[];
    const kinds = entries.map((entry) => entry['kind']);
    assert.deepEqual([...kinds].sort(), ['artifact', 'artifact', 'binding', 'file_effect', 'tool_call']);
    assert.ok(kinds.indexOf('tool_call') < kinds.indexOf('artifact'));
    assert.ok(kinds.indexOf('tool_call') < kinds.indexOf('file_effect'));
    const byKind = (kind: string): Json[] => entries.filter((entry) => entry['kind'] === kind);
    for (const entry of [...byKind('tool_call'), ...byKind('artifact'), ...byKind('file_effect')]) {
      assert.equal(entry['evidence_level'], 'self_observed');
      assert.equal(entry['tool_call_id'], 'tc-run');
    }
    assert.match(
      String(byKind('tool_call')[0]!['summary']),
      /^tool call tc-run: sh -c printf out; echo new > made\.txt \(completed, exit 0, \d+ ms\)$/,
    );
    const [effect] = byKind('file_effect');
    assert.equal(effect!['summary'], 'created made.txt (4 bytes)');
    assert.deepEqual(
      [(effect!['object'] as Json)['path'], (effect!['object'] as Json)['effect']],
      ['made.txt', 'created'],
    );
    const stdout = byKind('artifact').find((entry) => (entry['object'] as Json)['stream'] === 'stdout');
    assert.equal(stdout!['summary'], 'stdout of tool call tc-run: 3 bytes');
    assert.equal(stdout!['id'], (stdout!['object'] as Json)['object_hash']);
    assert.equal((stdout!['object'] as Json)['content_hash'], (recorded['stdout'] as Json)['hash']);
  });

  it('refuses a bad limit, view or cursor, paging parameters with the tree, and an unknown run', async function () {
    const daemon = shared.daemon;
    const run = 'run-tl-refused';
    const other = 'run-tl-other';
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-1', cgroup_id: '787' });
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-2', cgroup_id: '788' });
    await bind(daemon.url, { run_id: other, tool_call_id: 'tc-1', cgroup_id: '789' });
    for (const limit of ['0', '1001', '1.5', 'ten']) {
      const error = await refused(daemon.url, `run=${run}&limit=${limit}`, 400);
      assert.equal(error.code, 'invalid_argument');
      assert.match(error.message, /^limit /);
    }
    const view = await refused(daemon.url, `run=${run}&view=list`, 400);
    assert.deepEqual([view.code, /^view /.test(view.message)], ['invalid_argument', true]);
    const paged = await refused(daemon.url, `run=${run}&view=causality&limit=5`, 400);
    assert.deepEqual(paged, {
      code: 'invalid_argument',
      message: 'limit is not accepted with view=causality: the tree is not paged',
    });
    const both = await refused(daemon.url, `run=${run}&view=causality&limit=5&cursor=abc`, 400);
    assert.match(both.message, /^limit and cursor are not accepted with view=causality/);

    // a cursor of the events list, of another run, of another format, or not one at all
    const first = await timeline(daemon.url, `run=${run}&limit=1`);
    const format = (
      JSON.parse(Buffer.from(String(first['next_cursor']), 'base64url').toString()) as { v: number }
    ).v;
    const digest = filterDigest(['timeline', run, 'table']);
    const events = await request(daemon.url, `/v1/telemetry/events?run=${other}&limit=1`);
    assert.equal(events.status, 200);
    const cursors = [
      'not!base64',
      'eyJ2IjoxfQ',
      encodeCursor(format, filterDigest(['events', run, null]), ['0']),
      encodeCursor(format, filterDigest(['timeline', other, 'table']), ['0', '1', 'bnd_x']),
      encodeCursor(format + 1, digest, ['0', '1', 'bnd_x']),
      encodeCursor(format, digest, ['0', '9', 'x']), // no source has rank 9
      encodeCursor(format, digest, ['0', '2', 'x']), // an event's tie is its position, an integer
      encodeCursor(format, digest, ['0', '1']),
    ];
    for (const cursor of cursors) {
      const error = await refused(daemon.url, `run=${run}&cursor=${cursor}`, 400);
      assert.equal(error.code, 'invalid_cursor', cursor);
    }
    const resumed = await timeline(daemon.url, `run=${run}&cursor=${String(first['next_cursor'])}`);
    assert.deepEqual([resumed['count'], resumed['has_more']], [1, false]);

    for (const query of ['run=nope', 'run=nope&view=causality']) {
      assert.equal((await refused(daemon.url, query, 404)).code, 'run_not_found');
    }
    assert.equal((await refused(daemon.url, 'view=table', 400)).message, 'run is required');
  });

  it('answers the causality tree with counts, bounds and what the bounds cut', async function () {
    const daemon = await fixture.start();
    const run = 'run-tl';
    const recorded = await request(daemon.url, '/v1/record', {
      method: 'POST',
      body: JSON.stringify({ run_id: run, tool_call_id: 'tc-asserted', command: 'make', execute: false }),
    });
    assert.equal(recorded.status, 200);
    const now = Date.parse(String(recorded.body['started_at']));
    const at = (offset: number): string => seconds(now, offset);
    // 51 bound tool calls after the asserted one: the last two are past the bound of 50
    const calls = Array.from({ length: 51 }, (_v, k) => `tc-${String(k).padStart(2, '0')}`);
    for (const [k, id] of calls.entries())
      await bind(daemon.url, {
        run_id: run,
        tool_call_id: id,
        cgroup_id: String(800 + k),
        started_at: at(1 + k),
      });
    const line = (fields: Json): string =>
      nativeLine({ cgroup_id: '800', comm: 'worker', path: '/bin/w', ...fields });
    const lines = [
      line({
        timestamp: at(2),
        pid: 10,
        tgid: 10,
        ppid: 1,
        comm: 'sh',
        path: '/bin/sh',
        argv: ['sh', '-c', 'build'],
      }),
      // 101 children of 10: the latest is past the bound of 100, with its own child
      ...Array.from({ length: 101 }, (_v, i) =>
        line({ timestamp: at(3 + i / 1000), pid: 11 + i, tgid: 11 + i, ppid: 10 }),
      ),
      ...Array.from({ length: 2 }, () =>
        line({ event_type: 'file_write', timestamp: at(5), pid: 200, tgid: 200, ppid: 111 }),
      ),
      // 26 events of 11: 20 are listed
      ...Array.from({ length: 25 }, (_v, i) =>
        line({
          event_type: 'file_open',
          timestamp: at(4 + i / 1000),
          pid: 11,
          tgid: 11,
          ppid: 10,
          path: `/work/${i}`,
        }),
      ),
      line({ timestamp: at(10), pid: 30, tgid: 30, cgroup_id: '801' }),
      line({ timestamp: at(60), pid: 40, tgid: 40, cgroup_id: '850' }),
    ];
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
    // no binding leaves a run's event without a tool call; a store can still hold one. The process
    // rollup is folded in behind the commits: emptied, with its mark back at 0, it is folded in again
    await assertStopsCleanly(daemon);
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      await db.run("UPDATE events SET tool_call_id = NULL, binding_id = NULL WHERE cgroup_id = '801'");
      await db.run('DELETE FROM timeline_processes');
      await db.run('DELETE FROM timeline_process_types');
      await db.run('UPDATE timeline_rollup_mark SET through_seq = 0');
    });
    const restarted = await fixture.start();

    const body = await timeline(restarted.url, `run=${run}&view=causality`);
    assert.equal(body['view'], 'causality');
    assert.deepEqual(body['bounds'], {
      tool_calls: 50,
      processes_per_parent: 100,
      process_depth: 32,
      events_per_process: 20,
    });
    const root = body['root'] as Json;
    assert.deepEqual(root['counts'], { total: 131, by_type: { execve: 104, file_open: 25, file_write: 2 } });
    const children = root['children'] as Json[];
    assert.deepEqual(
      children.map((child) => child['tool_call_id']),
      ['tc-asserted', ...calls.slice(0, 49), null],
    );
    assert.deepEqual(root['omitted_children'], { count: 2, events: { total: 1, by_type: { execve: 1 } } });
    const [asserted, main] = children;
    assert.equal((asserted!['tool_call'] as Json)['status'], 'asserted');
    assert.deepEqual(
      [asserted!['bindings'], asserted!['counts'], asserted!['first_event']],
      [0, { total: 0, by_type: {} }, null],
    );
    assert.deepEqual([main!['tool_call'], main!['bindings'], main!['first_event']], [null, 1, nanos(at(2))]);

    const [shell] = main!['children'] as Json[];
    assert.equal((main!['children'] as Json[]).length, 1);
    assert.deepEqual(
      [shell!['tgid'], shell!['ppid'], shell!['comm'], shell!['binary'], shell!['argv']],
      [10, 1, 'sh', '/bin/sh', ['sh', '-c', 'build']],
    );
    const workers = shell!['children'] as Json[];
    assert.deepEqual(
      workers.map((worker) => worker['tgid']),
      Array.from({ length: 100 }, (_v, i) => 11 + i),
    );
    assert.deepEqual(shell!['omitted_children'], {
      count: 1,
      events: { total: 3, by_type: { execve: 1, file_write: 2 } },
    });
    const busy = workers[0]!;
    assert.deepEqual(busy['counts'], { total: 26, by_type: { execve: 1, file_open: 25 } });
    const listed = busy['events'] as Json[];
    assert.equal(listed.length, 20);
    assert.deepEqual(
      listed.map((event) => event['type']),
      ['execve', ...Array<string>(19).fill('file_open')],
    );
    assert.deepEqual(busy['omitted_events'], { total: 6, by_type: { file_open: 6 } });
    // a listed event is one line; its id leads to the whole record, which the table view lists
    const open = listed[1]!;
    const record = (await request(restarted.url, `/v1/telemetry/events?run=${run}&type=file_open&limit=1`))
      .body['events'] as Json[];
    assert.deepEqual(open, {
      id: record[0]!['id'],
      time: record[0]!['time'],
      type: 'file_open',
      evidence_level: (record[0]!['correlation'] as Json)['evidence_level'],
      summary: 'worker[11] file_open /work/0',
      loader_locale: false,
    });

    const unattributed = children[children.length - 1]!;
    assert.deepEqual(
      [unattributed['tool_call'], unattributed['counts'], (unattributed['children'] as Json[])[0]!['tgid']],
      [null, { total: 1, by_type: { execve: 1 } }, 30],
    );
    assertConserved(root);
  });

  it('shows the records of the tool calls it lists when the run has more recorded ones than it lists', async function () {
    const daemon = shared.daemon;
    const run = 'run-tl-records';
    // more than the tree lists (50): the records of the shown ones are then read for them alone
    const records: Json[] = [];
    for (let k = 0; k < 52; k++) {
      const recorded = await request(daemon.url, '/v1/record', {
        method: 'POST',
        body: JSON.stringify({
          run_id: run,
          tool_call_id: `rec-${String(k).padStart(2, '0')}`,
          command: 'true',
          args: [String(k)],
          execute: false,
        }),
      });
      assert.equal(recorded.status, 200);
      records.push(recorded.body);
    }
    const root = (await timeline(daemon.url, `run=${run}&view=causality`))['root'] as Json;
    const shown = (root['children'] as Json[]).map((child) => child['tool_call'] as Json);
    assert.equal(shown.length, 50);
    assert.deepEqual(root['omitted_children'], { count: 2, events: { total: 0, by_type: {} } });
    assert.deepEqual(
      shown.map((call) => [call['tool_call_id'], call['status'], call['args'], call['object_hash']]),
      records
        .slice(0, 50)
        .map((record) => [record['tool_call_id'], 'asserted', record['args'], record['object_hash']]),
    );
  });

  it('lists the same first events after upgrading a store from before the rollup kept them as JSON', async function () {
    const daemon = await fixture.start();
    const run = 'run-tl';
    const now = Date.now();
    await bind(daemon.url, {
      run_id: run,
      tool_call_id: 'tc-u',
      cgroup_id: '920',
      started_at: seconds(now, -60),
    });
    const lines = Array.from({ length: 30 }, (_v, i) =>
      nativeLine({
        event_type: i === 0 ? 'execve' : 'file_open',
        timestamp: seconds(now, -50 + i / 1000),
        pid: 80 + (i % 2),
        tgid: 80 + (i % 2),
        ppid: 1,
        comm: 'u',
        cgroup_id: '920',
        path: `/u/${i}`,
      }),
    );
    assert.equal((await ingest(daemon.url, lines.join('\n'), 'native')).status, 200);
    const before = await timeline(daemon.url, `run=${run}&view=causality`);
    await assertStopsCleanly(daemon);
    // store format 7: the rollup without its JSON column
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      await db.run('ALTER TABLE timeline_processes DROP COLUMN first_listed');
      // 009 to 012, which a format-7 store had not met either
      await db.run('DROP TABLE policy_decisions');
      await db.run('ALTER TABLE events DROP COLUMN judged');
      // and 010
      await db.run('DROP TABLE enforcements');
      await db.run('ALTER TABLE event_batches DROP COLUMN judged');
      await db.run('ALTER TABLE event_batches DROP COLUMN judgment_root');
      // 011
      for (const table of ['baselines', 'baseline_values', 'run_behaviour', 'run_rates'])
        await db.run(`DROP TABLE ${table}`);
      // 012
      await db.run('DROP TABLE run_signal_values');
      await db.run('DROP TABLE run_llm_usage');
      // 015
      await db.run('DROP TABLE host_chain');
      // 017
      await db.run('ALTER TABLE events DROP COLUMN loader_locale');
      // 018
      await db.run('DROP TABLE otlp_cursor');
      await db.run('DROP TABLE otlp_tool_calls');
      // 019
      await db.run('ALTER TABLE events DROP COLUMN login_uid');
      await db.run('DELETE FROM store_format WHERE version >= 8');
    });
    const upgraded = await fixture.start();
    const after = await timeline(upgraded.url, `run=${run}&view=causality`);
    assert.deepEqual(after, before);
    const processes = ((after['root'] as Json)['children'] as Json[])[0]!['children'] as Json[];
    assert.deepEqual(
      processes.map((process) => (process['events'] as Json[]).length),
      [15, 15],
    );
  });

  it('folds events a late binding claims from the spool into their processes exactly, earlier ones first', async function () {
    const daemon = await fixture.start();
    const run = 'run-tl';
    const now = Date.now();
    const at = (offset: number): string => seconds(now, offset);
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-1', cgroup_id: '900', started_at: at(-60) });
    const line = (fields: Json): string =>
      nativeLine({ comm: 'worker', pid: 50, tgid: 50, ppid: 7, ...fields });
    // attributed at ingest: process 50's later events, 24 of them past its first execve
    const bound = [
      line({ timestamp: at(-10), cgroup_id: '900', path: '/bin/late', argv: ['late'] }),
      ...Array.from({ length: 24 }, (_v, i) =>
        line({ event_type: 'file_open', timestamp: at(-9 + i / 1000), cgroup_id: '900', path: `/b/${i}` }),
      ),
    ];
    assert.equal((await ingest(daemon.url, bound.join('\n'), 'native')).status, 200);
    // spooled: no binding names cgroup 901 yet; process 50 ran there first, with another parent
    const spooled = [
      line({
        timestamp: at(-30),
        cgroup_id: '901',
        ppid: 6,
        comm: 'first',
        path: '/bin/first',
        argv: ['first'],
      }),
      ...Array.from({ length: 3 }, (_v, i) =>
        line({
          event_type: 'dns_query',
          timestamp: at(-29 + i),
          cgroup_id: '901',
          path: null,
          query: 'x.test',
        }),
      ),
      line({ timestamp: at(-20), pid: 51, tgid: 51, ppid: 50, cgroup_id: '901', path: '/bin/child' }),
    ];
    const pending = await ingest(daemon.url, spooled.join('\n'), 'native');
    assert.equal(pending.body['pending'], 5, JSON.stringify(pending.body));
    const before = (await timeline(daemon.url, `run=${run}&view=causality`))['root'] as Json;
    assert.deepEqual(before['counts'], { total: 25, by_type: { execve: 1, file_open: 24 } });

    const claimed = await bind(daemon.url, {
      run_id: run,
      tool_call_id: 'tc-1',
      cgroup_id: '901',
      started_at: at(-60),
    });
    assert.equal(claimed['recorrelated'], 5, JSON.stringify(claimed));
    const body = await timeline(daemon.url, `run=${run}&view=causality`);
    const root = body['root'] as Json;
    assert.deepEqual(root['counts'], { total: 30, by_type: { execve: 3, file_open: 24, dns_query: 3 } });
    const [call] = root['children'] as Json[];
    assert.deepEqual(
      [call!['tool_call_id'], call!['bindings'], call!['first_event']],
      ['tc-1', 2, nanos(at(-30))],
    );
    const [first] = call!['children'] as Json[];
    // its first event is now the one claimed late: ppid, comm, binary and argv are that execve's
    assert.deepEqual(
      [
        first!['tgid'],
        first!['ppid'],
        first!['comm'],
        first!['binary'],
        first!['argv'],
        first!['first_event'],
      ],
      [50, 6, 'first', '/bin/first', ['first'], nanos(at(-30))],
    );
    assert.deepEqual(first!['counts'], { total: 29, by_type: { execve: 2, dns_query: 3, file_open: 24 } });
    const listed = first!['events'] as Json[];
    assert.deepEqual(
      listed.slice(0, 6).map((event) => event['type']),
      ['execve', 'dns_query', 'dns_query', 'dns_query', 'execve', 'file_open'],
    );
    assert.equal(listed.length, 20);
    assert.deepEqual(first!['omitted_events'], { total: 9, by_type: { file_open: 9 } });
    assert.deepEqual(
      (first!['children'] as Json[]).map((child) => [child['tgid'], child['counts']]),
      [[51, { total: 1, by_type: { execve: 1 } }]],
    );
    assertConserved(root);

    // what the store folded in as events came is what rolling them up from scratch gives
    await assertStopsCleanly(daemon);
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (db) => {
      await db.run('DELETE FROM timeline_processes');
      await db.run('DELETE FROM timeline_process_types');
      await db.run('UPDATE timeline_rollup_mark SET through_seq = 0');
    });
    const restarted = await fixture.start();
    assert.deepEqual(await timeline(restarted.url, `run=${run}&view=causality`), body);
  });

  it('folds a process with few events whose later ones come after the rollup read it, and a run larger than one chunk', async function () {
    const daemon = shared.daemon;
    const run = 'run-tl-chunk';
    const now = Date.now();
    const at = (offset: number): string => seconds(now, offset);
    await bind(daemon.url, { run_id: run, tool_call_id: 'tc-c', cgroup_id: '910', started_at: at(-600) });
    const line = (fields: Json): string => nativeLine({ comm: 'w', cgroup_id: '910', ppid: 1, ...fields });
    const processOf = async (tgid: number): Promise<Json> => {
      const root = (await timeline(daemon.url, `run=${run}&view=causality`))['root'] as Json;
      const [call] = root['children'] as Json[];
      return (call!['children'] as Json[]).find((node) => node['tgid'] === tgid)!;
    };
    const opens = (tgid: number, count: number, from: number): string[] =>
      Array.from({ length: count }, (_v, i) =>
        line({ event_type: 'file_open', pid: tgid, tgid, timestamp: at(from + i / 1000), path: `/f/${i}` }),
      );
    const early = [line({ pid: 70, tgid: 70, timestamp: at(-500), path: '/bin/w' }), ...opens(70, 2, -499)];
    assert.equal((await ingest(daemon.url, early.join('\n'), 'native')).status, 200);
    assert.equal(((await processOf(70))['events'] as Json[]).length, 3);
    // later events of a process whose list is not full yet join it
    assert.equal((await ingest(daemon.url, opens(70, 2, -400).join('\n'), 'native')).status, 200);
    const grown = await processOf(70);
    assert.deepEqual(grown['counts'], { total: 5, by_type: { execve: 1, file_open: 4 } });
    assert.equal((grown['events'] as Json[]).length, 5);
    // more events than one fold takes (10,000 positions): counted exactly, the first 20 listed
    const many = opens(71, 10_050, -300);
    for (let from = 0; from < many.length; from += 5_000)
      assert.equal(
        (await ingest(daemon.url, many.slice(from, from + 5_000).join('\n'), 'native')).status,
        200,
      );
    const wide = await processOf(71);
    assert.deepEqual(wide['counts'], { total: 10_050, by_type: { file_open: 10_050 } });
    assert.deepEqual(
      (wide['events'] as Json[]).map((event) => event['summary']),
      Array.from({ length: 20 }, (_v, i) => `w[71] file_open /f/${i}`),
    );
    assert.deepEqual(wide['omitted_events'], { total: 10_030, by_type: { file_open: 10_030 } });
  });
});
