import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  assertStopsCleanly,
  useDaemonFixture,
  useSharedDaemon,
  type RunningDaemon,
} from '../support/daemon.js';
import { queryRows, withDatabase } from '../support/duckdb.js';
import { assertErrors, pageItems, request } from '../support/http.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';

interface Association {
  association_id: string;
  run_id: string;
  policy_decision: { decision: string; rule_id: string };
  event: { event_id: string; type: string; hash_at_decision: string; hash: string; unchanged: boolean };
  risk_id: string;
  response: { response_id: string; action: string; status: string; actor: string };
  tool_call: { tool_call_id: string; object_hash: string | null } | null;
  binding: { binding_id: string; object_hash: string | null } | null;
  event_batch: { object_hash: string } | null;
}

/** Every association under `path` (with `query`), page by page. */
function associationsOf(
  daemon: RunningDaemon,
  path: string,
  query: string,
  limit = 100,
): Promise<Association[]> {
  return pageItems<Association>(daemon.url, `${path}?${query}`, 'associations', limit);
}

const risky = [
  nativeLine({ event_type: 'ptrace', target_pid: 1 }),
  nativeLine({ event_type: 'execve', path: '/bin/true' }),
  nativeLine({ event_type: 'file_open', path: '/root/.ssh/id_rsa' }),
  nativeLine({ event_type: 'network_connect', dst_ip: '192.168.1.4', dst_port: 80 }),
];

describe('audit associations (GET /v1/telemetry/audit-associations, /api/audit/associations)', function () {
  const fixture = useDaemonFixture();

  /** Two runs with risky events, bound to two tool calls, then a checkpoint so the batches are sealed. */
  async function storeRuns(daemon: RunningDaemon): Promise<void> {
    const since = '2026-01-01T00:00:00Z';
    await bind(daemon.url, { run_id: 'run-a', tool_call_id: 'tc-a', cgroup_id: '777', started_at: since });
    await bind(daemon.url, { run_id: 'run-b', tool_call_id: 'tc-b', cgroup_id: '778', started_at: since });
    assert.equal((await ingest(daemon.url, risky.join('\n'), 'native')).status, 200);
    const other = risky.map((line) => line.replace('"cgroup_id":"777"', '"cgroup_id":"778"'));
    assert.equal((await ingest(daemon.url, other.join('\n'), 'native')).status, 200);
    for (const run of ['run-a', 'run-b'])
      assert.equal((await request(daemon.url, `/v1/graph/checkpoint?run=${run}`)).status, 200);
  }

  describe('of two runs stored once', function () {
    // both tests only read the same two runs: one daemon, the runs stored before them
    const shared = useSharedDaemon();
    before(async function () {
      await storeRuns(shared.daemon);
    });

    it('ties each decision of a run to its event, risk, response, tool call, binding and sealed batch', async function () {
      const { daemon } = shared;
      const events = await pageAll(daemon.url, 'run=run-a');
      const associations = await associationsOf(daemon, '/v1/telemetry/audit-associations', 'run=run-a', 2);
      assert.deepEqual(
        associations.map((a) => [
          a.policy_decision.rule_id,
          a.event.type,
          a.response.action,
          a.response.status,
        ]),
        [
          ['ptrace', 'ptrace', 'quarantine', 'recommended'],
          ['secret_path', 'secret_path', 'kill', 'recommended'],
          ['private_cidr', 'private_cidr', 'deny', 'recommended'],
        ],
      );
      const byId = new Map(events.map((event) => [event['id'] as string, event]));
      for (const association of associations) {
        const event = byId.get(association.event.event_id)!;
        assert.equal(association.run_id, 'run-a');
        assert.equal(association.association_id, `association_${event['id'] as string}`);
        assert.equal(association.risk_id, `risk_${event['id'] as string}`);
        assert.equal(association.response.response_id, `response_${event['id'] as string}`);
        assert.deepEqual(
          [association.event.hash, association.event.hash_at_decision, association.event.unchanged],
          [event['hash'], event['hash'], true],
        );
        // a tool call only bound, never recorded, has no object of its own
        assert.deepEqual(association.tool_call, { tool_call_id: 'tc-a', object_hash: null });
        assert.equal(association.binding?.binding_id, event['binding_id']);
        assert.match(association.binding?.object_hash ?? '', /^sha256:[0-9a-f]{64}$/);
        assert.match(association.event_batch?.object_hash ?? '', /^sha256:[0-9a-f]{64}$/);
      }
    });

    it('lists every run in event order without `run`, the same under /api/audit/associations', async function () {
      const { daemon } = shared;
      const all = await associationsOf(daemon, '/v1/telemetry/audit-associations', 'x=1', 4);
      assert.deepEqual(
        all.map((a) => a.run_id),
        ['run-a', 'run-a', 'run-a', 'run-b', 'run-b', 'run-b'],
      );
      const alias = await associationsOf(daemon, '/api/audit/associations', 'x=1', 4);
      assert.deepEqual(alias, all);
      const page = await request(daemon.url, '/api/audit/associations?run=run-b');
      assert.equal(page.body['schema_version'], 'provenance.audit_associations/v1');
      assert.equal(page.body['run_id'], 'run-b');
      const first = await request(daemon.url, '/v1/telemetry/audit-associations?limit=1');
      const cursor = first.body['next_cursor'] as string;
      const cases: [string, number, string][] = [
        ['/v1/telemetry/audit-associations?run=nope', 404, 'run_not_found'],
        ['/v1/telemetry/audit-associations?run=', 400, 'invalid_argument'],
        ['/v1/telemetry/audit-associations?limit=x', 400, 'invalid_argument'],
        ['/api/audit/associations?cursor=%%%', 400, 'invalid_cursor'],
        [`/v1/telemetry/audit-associations?run=run-a&cursor=${cursor}`, 400, 'invalid_cursor'],
      ];
      await assertErrors(daemon.url, cases);
    });
  });

  describe('verify checks the policy links', function () {
    /** The run stored and verified ok, the daemon stopped, `tamper` applied; verify's kinds after. */
    async function kindsAfter(tamper: (db: DuckDBConnection) => Promise<unknown>): Promise<string[]> {
      let daemon = await fixture.start();
      await storeRuns(daemon);
      const before = await request(daemon.url, '/v1/graph/verify?run=run-a');
      assert.equal(before.body['status'], 'ok', JSON.stringify(before.body));
      await assertStopsCleanly(daemon);
      await withDatabase(join(fixture.dataDir, 'provd.duckdb'), tamper);
      daemon = await fixture.start();
      const { status, body } = await request(daemon.url, '/v1/graph/verify?run=run-a');
      assert.equal(status, 200);
      assert.equal(body['status'], 'failed', JSON.stringify(body));
      return [...new Set((body['issues'] as { kind: string }[]).map((issue) => issue.kind))].sort();
    }

    const secretOf = async (db: DuckDBConnection): Promise<string> => {
      const [row] = await queryRows(
        db,
        "SELECT event_id FROM policy_decisions WHERE rule_id = 'secret_path' AND run_id = 'run-a'",
      );
      return String(row!['event_id']);
    };

    it('fails when the event a decision judged is deleted', async function () {
      const kinds = await kindsAfter(async (db) => {
        await db.run(`DELETE FROM events WHERE id = '${await secretOf(db)}'`);
      });
      assert.ok(kinds.includes('decision_event_missing'), kinds.join());
    });

    it('fails when the event a decision judged is rewritten, its hash with it', async function () {
      const kinds = await kindsAfter(async (db) => {
        await db.run(
          `UPDATE events SET attrs = '{"path":"/tmp/nothing"}', hash = 'sha256:' || sha256('x') WHERE id = '${await secretOf(db)}'`,
        );
      });
      assert.ok(kinds.includes('decision_event_altered'), kinds.join());
    });

    it('fails when a decision is deleted from a judged event', async function () {
      const kinds = await kindsAfter(async (db) => {
        await db.run(`DELETE FROM policy_decisions WHERE event_id = '${await secretOf(db)}'`);
      });
      assert.deepEqual(kinds, ['decision_missing', 'judgment_root_mismatch']);
    });

    it("fails when a decision is deleted with its event's judged flag: the sealed batch counted it", async function () {
      const kinds = await kindsAfter(async (db) => {
        const id = await secretOf(db);
        await db.run(`DELETE FROM policy_decisions WHERE event_id = '${id}'`);
        await db.run(`UPDATE events SET judged = false WHERE id = '${id}'`);
      });
      assert.deepEqual(kinds, ['judgment_root_mismatch']);
    });

    it('fails when a decision is rewritten from kill to allow', async function () {
      const kinds = await kindsAfter(async (db) => {
        await db.run(
          `UPDATE policy_decisions SET decision = 'allow', rule_id = 'default_allow' WHERE event_id = '${await secretOf(db)}'`,
        );
      });
      assert.deepEqual(kinds, ['judgment_root_mismatch']);
    });

    it('seals the decisions of events that waited in the spool once a run claims them', async function () {
      const daemon = await fixture.start();
      const line = nativeLine({ event_type: 'ptrace', cgroup_id: '990' });
      assert.equal((await ingest(daemon.url, `${line}\n`, 'native')).status, 200);
      await bind(daemon.url, { run_id: 'run-late', tool_call_id: 'tc', cgroup_id: '990' });
      // verify seals what is due first
      const verified = await request(daemon.url, '/v1/graph/verify?run=run-late');
      assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
      const [association] = await associationsOf(daemon, '/v1/telemetry/audit-associations', 'run=run-late');
      assert.equal(association?.policy_decision.rule_id, 'ptrace');
      assert.match(association?.event_batch?.object_hash ?? '', /^sha256:/);
      await assertStopsCleanly(daemon);
      await withDatabase(join(fixture.dataDir, 'provd.duckdb'), (db) =>
        db.run(`UPDATE policy_decisions SET reason = 'nothing to see' WHERE run_id = 'run-late'`),
      );
      const again = await fixture.start();
      const tampered = await request(again.url, '/v1/graph/verify?run=run-late');
      assert.deepEqual(
        (tampered.body['issues'] as { kind: string }[]).map((issue) => issue.kind),
        ['judgment_root_mismatch'],
      );
    });

    it('fails when a kill is recorded for an event the policy did not decide to kill', async function () {
      const kinds = await kindsAfter(async (db) => {
        const [ptrace] = await queryRows(
          db,
          "SELECT d.event_id FROM policy_decisions d WHERE d.rule_id = 'ptrace' AND d.run_id = 'run-a'",
        );
        await db.run(
          `INSERT INTO enforcements VALUES ('${String(ptrace!['event_id'])}', 'run-a', 'tc-a', 'b', 'ptrace', 'kill',
           'cgroup', '777', 'killed', 1, 'forged', 0)`,
        );
      });
      assert.deepEqual(kinds, ['enforcement_decision_missing']);
    });
  });
});
