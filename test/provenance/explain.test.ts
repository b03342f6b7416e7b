import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertStopsCleanly,
  useDaemonFixture,
  useSharedDaemon,
  type RunningDaemon,
} from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';

const token = 'explain-test-token';
const auth = { authorization: `Bearer ${token}` };

interface Step {
  basis: Record<string, unknown>;
  node: Record<string, unknown>;
}

async function explain(
  daemon: RunningDaemon,
  query: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return request(daemon.url, `/v1/graph/explain?${query}`, { headers: auth });
}

/** relation, method and node kind of each step: the shape of a path. */
function shape(body: Record<string, unknown>): string[] {
  return (body['path'] as Step[]).map(
    ({ basis, node }) =>
      `${String(basis['relation'])}/${String(basis['method'])} -> ${String(node['kind'])} ${String(node['id'])}`,
  );
}

describe('GET /v1/graph/explain', function () {
  const fixture = useDaemonFixture();
  // one daemon for the tests that store a run of their own (run-3, run-r, an unbound cgroup 999)
  // and explain only what they stored; those that grow run-e, or read the store after a stop,
  // keep their own
  const shared = useSharedDaemon({ authToken: token });
  let daemon: RunningDaemon;
  let fileEventId = '';

  /** POSTs native NDJSON to the daemon; the ingest answer. */
  async function ingest(body: string): Promise<Record<string, unknown>> {
    return (
      await request(daemon.url, '/v1/telemetry/ingest?format=native', { method: 'POST', headers: auth, body })
    ).body;
  }

  /** The events of a run (of one type), as GET /v1/telemetry/events lists them. */
  async function listEvents(run: string, type?: string): Promise<Record<string, unknown>[]> {
    const query = type === undefined ? `run=${run}` : `run=${run}&type=${type}`;
    return (await request(daemon.url, `/v1/telemetry/events?${query}`, { headers: auth })).body[
      'events'
    ] as Record<string, unknown>[];
  }

  /** A run whose cgroup holds bash (10) starting cat (11), which opens /etc/hosts; another process elsewhere. */
  async function storeRun(): Promise<void> {
    daemon = await fixture.start({ authToken: token });
    await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-e', tool_call_id: 'tc-e', cgroup_id: '777' }),
    });
    const lines = [
      nativeLine({
        timestamp: '2026-01-01T00:00:01Z',
        pid: 10,
        tgid: 10,
        ppid: 1,
        comm: 'bash',
        path: '/bin/bash',
        argv: ['bash', '-c', 'cat /etc/hosts'],
      }),
      nativeLine({
        timestamp: '2026-01-01T00:00:02Z',
        pid: 11,
        tgid: 11,
        ppid: 10,
        comm: 'cat',
        path: '/bin/cat',
        argv: ['cat', '/etc/hosts'],
      }),
      nativeLine({
        event_type: 'file_open',
        timestamp: '2026-01-01T00:00:03Z',
        pid: 11,
        tgid: 11,
        ppid: 10,
        comm: 'cat',
        path: '/etc/hosts',
      }),
    ].join('\n');
    const ingested = await ingest(lines);
    assert.equal(ingested['accepted'], 3);
    const events = await listEvents('run-e', 'file_open');
    fileEventId = String(events[0]!['id']);
    // batches are sealed by the next checkpoint round, within a second, or on demand like this
    await request(daemon.url, '/v1/graph/checkpoint?run=run-e', { headers: auth });
  }

  it('explains an event: its process, the exec lineage, the tool call through its binding, and the run, each with its basis', async function () {
    await storeRun();
    const { status, body } = await explain(daemon, `event=${fileEventId}`);
    assert.equal(status, 200);
    const node = body['node'] as Record<string, unknown>;
    assert.equal(node['kind'], 'event');
    assert.equal((node['event'] as Record<string, unknown>)['id'], fileEventId);
    assert.match(String(node['object_hash']), /^sha256:/, 'the event_batch sealing the event');
    assert.deepEqual(shape(body), [
      'performed_by/process_identity -> process 11',
      'child_of/exec_lineage -> process 10',
      'attributed_to/cgroup -> tool_call tc-e',
      'part_of/binding -> run run-e',
    ]);
    const [performedBy, childOf, attributed] = body['path'] as Step[];
    // the process node is its exec (argv), not its latest event
    assert.equal(performedBy!.node['label'], 'process 11 cat: cat /etc/hosts');
    // the execs were committed with the event: the same event_batch seals them
    assert.equal(performedBy!.basis['object_hash'], node['object_hash']);
    assert.equal(childOf!.node['object_hash'], node['object_hash']);
    assert.equal(attributed!.basis['confidence'], 0.98);
    assert.equal(attributed!.basis['evidence_level'], 'kernel_correlated');
    assert.match(String(attributed!.basis['binding_id']), /^bnd_/);
    // the binding's object in the run's graph holds the edge
    assert.match(String(attributed!.basis['object_hash']), /^sha256:[0-9a-f]{64}$/);
    assert.equal(body['complete'], true);
    // a process by tgid, and the file with its run, end in the same run
    const process = await explain(daemon, 'process=11');
    assert.deepEqual(shape(process.body).slice(-1), ['part_of/binding -> run run-e']);
    const file = await explain(daemon, 'file=%2Fetc%2Fhosts&run=run-e');
    assert.equal(file.body['touch_count'], 1);
    assert.deepEqual(shape(file.body)[0], `touched_by/path -> event ${fileEventId}`);
    // a tool call id bound in a later run too: the latest is explained, the other counted
    await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-later', tool_call_id: 'tc-e', cgroup_id: '778' }),
    });
    const toolCall = await explain(daemon, 'tool-call=tc-e');
    assert.deepEqual(shape(toolCall.body), ['part_of/binding -> run run-later']);
    assert.equal(toolCall.body['other_matches'], 1);
    // run narrows a tool call id to that run: the earlier one, no other counted; a run without it is 404
    const inRun = await explain(daemon, 'tool-call=tc-e&run=run-e');
    assert.deepEqual(shape(inRun.body), ['part_of/binding -> run run-e']);
    assert.equal(inRun.body['other_matches'], 0);
    assert.equal(inRun.body['tool_call'], undefined, 'a bound tool call has no hook account');
    const elsewhere = await explain(daemon, 'tool-call=tc-e&run=run-nope');
    assert.equal(elsewhere.status, 404);
    const run = await explain(daemon, 'run=run-e');
    assert.equal((run.body['node'] as Record<string, unknown>)['kind'], 'run');
    assert.deepEqual(run.body['path'], []);
  });

  it('explains a risk: the decision down to the event it judged, then that event up to its run', async function () {
    await storeRun();
    const secret = nativeLine({
      event_type: 'file_open',
      timestamp: '2026-01-01T00:00:04Z',
      pid: 11,
      tgid: 11,
      ppid: 10,
      comm: 'cat',
      path: '/root/.ssh/id_ed25519',
    });
    assert.equal((await ingest(secret))['accepted'], 1);
    const risks = (await request(daemon.url, '/v1/security/risks?run=run-e', { headers: auth })).body;
    const [risk] = risks['risks'] as Record<string, unknown>[];
    const riskId = String(risk!['risk_id']);
    const { status, body } = await explain(daemon, `risk=${riskId}`);
    assert.equal(status, 200, JSON.stringify(body));
    const node = body['node'] as Record<string, unknown>;
    assert.deepEqual(
      [node['kind'], node['id'], node['run_id'], node['evidence_level']],
      ['risk', riskId, 'run-e', 'kernel_correlated'],
    );
    assert.equal(
      node['label'],
      'critical kill by rule secret_path: touches a file that holds credentials, keys or tokens',
    );
    const eventId = String((risk!['evidence'] as Record<string, unknown>[])[0]!['event_id']);
    assert.deepEqual(shape(body), [
      `judged/policy:built-in -> event ${eventId}`,
      'performed_by/process_identity -> process 11',
      'child_of/exec_lineage -> process 10',
      'attributed_to/cgroup -> tool_call tc-e',
      'part_of/binding -> run run-e',
    ]);
    assert.equal(body['complete'], true);
    // a risk id that names an event the policy allowed is no risk
    const { status: allowed } = await explain(daemon, `risk=risk_${fileEventId}`);
    assert.equal(allowed, 404);
  });

  it('finds the same lineage whether the process rollup has folded the events in or not', async function () {
    await storeRun();
    const before = await explain(daemon, `event=${fileEventId}`);
    // the causality view folds every committed event into the rollup before it reads
    const causality = await request(daemon.url, '/v1/timeline?run=run-e&view=causality', { headers: auth });
    assert.equal(causality.status, 200);
    const after = await explain(daemon, `event=${fileEventId}`);
    assert.deepEqual(after.body, before.body);
    // an event of cat committed past the rollup's mark still leads to cat's exec, and bash's
    const later = await ingest(
      nativeLine({
        event_type: 'file_write',
        timestamp: '2026-01-01T00:00:04Z',
        pid: 11,
        tgid: 11,
        ppid: 10,
        comm: 'cat',
        path: '/tmp/out',
      }),
    );
    assert.equal(later['accepted'], 1);
    const events = await listEvents('run-e', 'file_write');
    const writeId = String(events[0]!['id']);
    const { body } = await explain(daemon, `event=${writeId}`);
    assert.deepEqual(shape(body), [
      'performed_by/process_identity -> process 11',
      'child_of/exec_lineage -> process 10',
      'attributed_to/cgroup -> tool_call tc-e',
      'part_of/binding -> run run-e',
    ]);
    assert.equal((body['path'] as Step[])[0]!.node['label'], 'process 11 cat: cat /etc/hosts');
    // tgid 11 reused by a later exec: its events lead to that exec, the latest before them
    const reused = await ingest(
      [
        nativeLine({
          timestamp: '2026-01-01T00:00:05Z',
          pid: 11,
          tgid: 11,
          ppid: 10,
          comm: 'cat',
          argv: ['cat', 'again'],
        }),
        nativeLine({
          event_type: 'file_open',
          timestamp: '2026-01-01T00:00:06Z',
          pid: 11,
          tgid: 11,
          ppid: 10,
          comm: 'cat',
          path: '/tmp/again',
        }),
      ].join('\n'),
    );
    assert.equal(reused['accepted'], 2);
    const opens = await listEvents('run-e', 'file_open');
    const againId = String(
      opens.find((event) => (event['attrs'] as Record<string, unknown>)['path'] === '/tmp/again')!['id'],
    );
    const again = await explain(daemon, `event=${againId}`);
    assert.equal((again.body['path'] as Step[])[0]!.node['label'], 'process 11 cat: cat again');
  });

  it('follows a lineage of three processes once the rollup holds them all, and stops at a parent the run never saw', async function () {
    daemon = shared.daemon;
    await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-3', tool_call_id: 'tc-3', cgroup_id: '779' }),
    });
    const exec = (second: number, pid: number, ppid: number, comm: string): string =>
      nativeLine({
        timestamp: `2026-01-01T00:00:0${second}Z`,
        pid,
        tgid: pid,
        ppid,
        comm,
        cgroup_id: '779',
        path: `/bin/${comm}`,
        argv: [comm],
      });
    const lines = [
      exec(1, 20, 1, 'make'),
      exec(2, 21, 20, 'sh'),
      exec(3, 22, 21, 'cc'),
      nativeLine({
        event_type: 'file_open',
        timestamp: '2026-01-01T00:00:04Z',
        pid: 22,
        tgid: 22,
        ppid: 21,
        comm: 'cc',
        cgroup_id: '779',
        path: '/src/main.c',
      }),
    ];
    const ingested = await ingest(lines.join('\n'));
    assert.equal(ingested['accepted'], 4);
    // the causality view folds every committed event into the rollup before it reads
    const causality = await request(daemon.url, '/v1/timeline?run=run-3&view=causality', { headers: auth });
    assert.equal(causality.status, 200);
    const events = await listEvents('run-3', 'file_open');
    const openId = String(events[0]!['id']);
    const { body } = await explain(daemon, `event=${openId}`);
    assert.deepEqual(shape(body), [
      'performed_by/process_identity -> process 22',
      'child_of/exec_lineage -> process 21',
      'child_of/exec_lineage -> process 20',
      'attributed_to/cgroup -> tool_call tc-3',
      'part_of/binding -> run run-3',
    ]);
  });

  it("follows the exec's parent, not the event's own ppid, when they part", async function () {
    await storeRun();
    // bash (10) exits: cat is reparented to 1, and tgid 10 is reused by another process
    const later = await ingest(
      [
        nativeLine({
          timestamp: '2026-01-01T00:00:04Z',
          pid: 10,
          tgid: 10,
          ppid: 1,
          comm: 'python3',
          path: '/usr/bin/python3',
          argv: ['python3', 'serve.py'],
        }),
        nativeLine({
          event_type: 'file_write',
          timestamp: '2026-01-01T00:00:05Z',
          pid: 11,
          tgid: 11,
          ppid: 1,
          comm: 'cat',
          path: '/tmp/reparented',
        }),
        nativeLine({
          event_type: 'file_write',
          timestamp: '2026-01-01T00:00:06Z',
          pid: 11,
          tgid: 11,
          ppid: 10,
          comm: 'cat',
          path: '/tmp/reused-parent',
        }),
      ].join('\n'),
    );
    assert.equal(later['accepted'], 3);
    const writes = await listEvents('run-e', 'file_write');
    for (const event of writes) {
      const { body } = await explain(daemon, `event=${String(event['id'])}`);
      const path = (event['attrs'] as Record<string, unknown>)['path'];
      // cat's exec names bash as its parent: the tgid's later process, started after cat, is not it
      assert.deepEqual(
        (body['path'] as Step[]).slice(0, 2).map(({ node }) => node['label']),
        ['process 11 cat: cat /etc/hosts', 'process 10 bash: bash -c cat /etc/hosts'],
        `the lineage of the write to ${String(path)}`,
      );
    }
  });

  it('finds the exec of a process that started long before the event, and the later of two execs of one tgid', async function () {
    await storeRun();
    const line = (fields: Record<string, unknown>): string => nativeLine({ ppid: 10, ...fields });
    const later = await ingest(
      [
        line({ timestamp: '2026-01-01T00:00:10Z', pid: 12, tgid: 12, comm: 'sleep', argv: ['sleep', '1'] }),
        // the same process replaces its image: its exec is the later one
        line({
          timestamp: '2026-01-01T00:00:20Z',
          pid: 12,
          tgid: 12,
          comm: 'python3',
          argv: ['python3', 'x'],
        }),
        line({
          event_type: 'file_write',
          timestamp: '2026-01-01T00:05:00Z',
          pid: 11,
          tgid: 11,
          comm: 'cat',
          path: '/tmp/late',
        }),
        line({
          event_type: 'file_write',
          timestamp: '2026-01-01T00:06:00Z',
          pid: 12,
          tgid: 12,
          comm: 'python3',
          path: '/tmp/later',
        }),
      ].join('\n'),
    );
    assert.equal(later['accepted'], 4);
    const writes = await listEvents('run-e', 'file_write');
    const idOf = (path: string): string =>
      String(writes.find((event) => (event['attrs'] as Record<string, unknown>)['path'] === path)!['id']);
    const labels = async (path: string): Promise<unknown[]> =>
      ((await explain(daemon, `event=${idOf(path)}`)).body['path'] as Step[])
        .slice(0, 2)
        .map(({ node }) => node['label']);
    const expected = {
      '/tmp/late': ['process 11 cat: cat /etc/hosts', 'process 10 bash: bash -c cat /etc/hosts'],
      '/tmp/later': ['process 12 python3: python3 x', 'process 10 bash: bash -c cat /etc/hosts'],
    };
    for (const [path, lineage] of Object.entries(expected))
      assert.deepEqual(await labels(path), lineage, path);
    // the same once the process rollup has folded every event in (the causality view waits for it)
    assert.equal(
      (await request(daemon.url, '/v1/timeline?run=run-e&view=causality', { headers: auth })).status,
      200,
    );
    for (const [path, lineage] of Object.entries(expected))
      assert.deepEqual(await labels(path), lineage, path);
  });

  it('explains a recorded artifact and file effect through their tool call', async function () {
    daemon = shared.daemon;
    const work = mkdtempSync(join(tmpdir(), 'provd-explain-'));
    try {
      const recorded = await request(daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          run_id: 'run-r',
          tool_call_id: 'tc-r',
          command: 'sh',
          args: ['-c', 'echo made > out.txt; echo done'],
          cwd: work,
        }),
      });
      assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
      const stdout = recorded.body['stdout'] as Record<string, unknown>;
      const artifact = await explain(daemon, `artifact=${String(stdout['object_hash'])}`);
      assert.equal((artifact.body['node'] as Record<string, unknown>)['kind'], 'artifact');
      assert.deepEqual(shape(artifact.body), [
        'output_of/recorded -> tool_call tc-r',
        'part_of/recorded -> run run-r',
      ]);
      const [toRun] = (artifact.body['path'] as Step[]).slice(-1);
      assert.equal(
        toRun!.basis['object_hash'],
        recorded.body['object_hash'],
        "the tool call's object holds its run",
      );
      const file = await explain(daemon, `file=${encodeURIComponent(join(work, 'out.txt'))}&run=run-r`);
      assert.equal(file.status, 200, JSON.stringify(file.body));
      assert.deepEqual(shape(file.body).slice(1), [
        'effect_of/recorded -> tool_call tc-r',
        'part_of/recorded -> run run-r',
      ]);
      const toolCall = await explain(daemon, 'tool-call=tc-r');
      assert.deepEqual(shape(toolCall.body), ['part_of/recorded -> run run-r']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('stops the path of an event no binding claimed, and says why', async function () {
    daemon = shared.daemon;
    await ingest(nativeLine({ cgroup_id: '999', pid: 50, tgid: 50 }));
    const process = await explain(daemon, 'process=50');
    assert.equal(process.status, 200);
    assert.equal(process.body['complete'], false);
    assert.match(String(process.body['incomplete_reason']), /no binding/);
  });

  it('finds an event the spool settled by its id, through the range its ingest batch was moved to', async function () {
    daemon = await fixture.start({ authToken: token });
    const lines = Array.from({ length: 12 }, (_v, s) =>
      nativeLine({
        cgroup_id: '555',
        pid: 60 + s,
        tgid: 60 + s,
        timestamp: `2026-01-01T00:00:${String(10 + s)}Z`,
      }),
    );
    const ingested = await ingest(lines.join('\n'));
    assert.equal(ingested['pending'], 12);
    await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-s', tool_call_id: 'tc-s', cgroup_id: '555' }),
    });
    const events = await listEvents('run-s');
    const ids = events.map((event) => String(event['id']));
    assert.equal(ids.length, 12);
    const explained = await explain(daemon, `event=${ids[11]!}`);
    assert.equal((explained.body['node'] as Record<string, unknown>)['id'], ids[11]);
    assert.deepEqual(shape(explained.body).slice(-2), [
      'attributed_to/cgroup -> tool_call tc-s',
      'part_of/binding -> run run-s',
    ]);
    await assertStopsCleanly(daemon);
    const ranges = await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
      queryRows(db, 'SELECT batch_id, time_to_ns - time_from_ns AS span FROM settled_ranges'),
    );
    // the events were captured one second apart, from :10 to :21
    assert.deepEqual(ranges, [
      { batch_id: ids[0]!.slice(0, ids[0]!.lastIndexOf('.')), span: 11_000_000_000n },
    ]);
  });

  it('answers 400 naming the parameters of any other combination, and 404 for a node nothing names', async function () {
    await storeRun();
    const bad: [string, RegExp][] = [
      ['', /needs one of/],
      ['event=a&process=1', /one node, got event, process/],
      ['event=a&run=run-e', /run goes only with file/],
      ['tool-call=t&artifact=x&run=r', /one node, got tool-call, artifact and run/],
      ['file=%2Fetc%2Fhosts', /file needs run/],
      ['event=a&event=b', /event must be given once/],
    ];
    for (const [query, message] of bad) {
      const { status, body } = await explain(daemon, query);
      assert.equal(status, 400, query);
      assert.match(String((body['error'] as Record<string, unknown>)['message']), message, query);
    }
    // run_not_found names an unknown run only; any other node nothing names is not_found
    for (const [query, code] of [
      ['event=nope', 'not_found'],
      ['process=4242424', 'not_found'],
      ['tool-call=nope', 'not_found'],
      ['artifact=sha256:00', 'not_found'],
      ['risk=r1', 'not_found'],
      ['run=nope', 'run_not_found'],
      ['file=%2Fnope&run=run-e', 'not_found'],
      ['file=%2Fetc%2Fhosts&run=nope', 'run_not_found'],
    ]) {
      const { status, body } = await explain(daemon, query!);
      assert.equal(status, 404, query);
      assert.equal((body['error'] as Record<string, unknown>)['code'], code, query);
    }
  });
});
