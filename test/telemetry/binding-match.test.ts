import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { execute, readRows, sql } from '../../src/store/sql.js';
import { isBindRequestError, parseBindRequest, type Binding } from '../../src/telemetry/binding.js';
import { BindingIndex } from '../../src/telemetry/binding-index.js';
import { bindingMatch } from '../../src/telemetry/binding-match.sql.js';
import { methodCode } from '../../src/model/codes.js';
import type { ParsedEvent } from '../../src/model/event.js';

const full = '3f2a9c1d4b5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8';
const t0 = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z

/** Every combination of the keys correlate looks at, with values on and around each binding's. */
function events(): ParsedEvent[] {
  const pids: [number | null, number | null, number | null][] = [
    [4242, 4242, 1],
    [5000, 4242, 1],
    [5000, null, 4242],
    [99, 5000, 1],
    [5000, 5001, 99],
    [null, null, null],
    [4243, null, 1],
  ];
  const execIds: unknown[] = [undefined, 'exec-abc', 'exec-abd', '', 4242, null];
  const cgroups = ['777', '778', null, '\ufeff777'];
  const containers = [
    full,
    full.slice(0, 12),
    full.slice(0, 11),
    full.slice(0, 20),
    `docker://${full}`,
    `DOCKER://${full.toUpperCase()}`,
    `containerd://${full.slice(0, 12)}`,
    `cri-o://${full}x`,
    'web-1',
    'WEB-1',
    'docker://web-1',
    `${full}0`,
    '0'.repeat(64),
    null,
  ];
  const times = [t0 - 1n, t0, t0 + 5_000_000_000n, t0 + 10_000_000_000n, t0 + 10_000_000_001n];
  const list: ParsedEvent[] = [];
  let n = 0;
  // a Latin-square walk over the dimensions, so every value of each meets every value of the others
  for (const [pid, tgid, ppid] of pids)
    for (const execId of execIds)
      for (const cgroupId of cgroups)
        for (const containerId of containers) {
          const timeNs = times[n++ % times.length]!;
          const attrs: Record<string, unknown> = execId === undefined ? {} : { exec_id: execId };
          list.push({
            type: 'execve',
            source: 'tetragon',
            time: '',
            timeNs,
            pid,
            tgid,
            ppid,
            uid: null,
            loginUid: null,
            comm: null,
            cgroupId,
            containerId,
            attrs,
          });
        }
  return list;
}

function binding(body: Record<string, unknown>): Binding {
  const parsed = parseBindRequest({ run_id: 'r', tool_call_id: 't', ...body }, 1n);
  if (isBindRequestError(parsed)) throw new Error(parsed.message);
  return parsed;
}

const window = { started_at: '2026-01-01T00:00:00Z', ended_at: '2026-01-01T00:00:10.000000000Z' };
const bindings: Binding[] = [
  binding({ process_id: 'exec-abc' }),
  binding({ process_id: '4242' }),
  binding({ process_id: '04242' }),
  binding({ process_id: '4294967296' }),
  binding({ cgroup_id: '777' }),
  binding({ cgroup_id: '\ufeff777', ...window }),
  binding({ container_id: full }),
  binding({ container_id: full.slice(0, 12) }),
  binding({ container_id: `DOCKER://${full.slice(0, 20).toUpperCase()}` }),
  binding({ container_id: full.slice(0, 11) }),
  binding({ container_id: 'web-1' }),
  binding({ container_id: 'cri-o://Web-1', ...window }),
  binding({ container_id: 'docker://' }),
  binding({ pid: 4242 }),
  binding({ root_pid: 99, ...window }),
  binding({ pid: 4242, root_pid: 99, started_at: '2026-01-01T00:00:05Z' }),
  binding({ process_id: 'exec-abc', cgroup_id: '777', container_id: full, pid: 4242, ...window }),
  binding({ cgroup_id: '778', pid: 5000, ended_at: '2026-01-01T00:00:05Z' }),
];

describe('bindingMatch (the SQL of one binding)', function () {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  const cases = events();

  before(async function () {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
    await execute(
      connection,
      sql`CREATE TABLE events (i INTEGER, time_ns BIGINT, pid UINTEGER, tgid UINTEGER, ppid UINTEGER,
          cgroup_id VARCHAR, container_id VARCHAR, attrs VARCHAR)`,
    );
    for (const [i, event] of cases.entries()) {
      await execute(
        connection,
        sql`INSERT INTO events VALUES (${i}, ${event.timeNs}, ${event.pid}, ${event.tgid}, ${event.ppid},
            ${event.cgroupId}, ${event.containerId}, ${canonicalJson(event.attrs)})`,
      );
    }
  });
  after(function () {
    connection.closeSync();
    instance.closeSync();
  });

  it('claims exactly the events, by exactly the tier, that an index holding the binding alone does', async function () {
    let claimed = 0;
    for (const bound of bindings) {
      const index = new BindingIndex();
      index.add(bound);
      const rows = await readRows<{ i: number; method: number | null }>(
        connection,
        sql`SELECT i, ${bindingMatch(bound)} AS method FROM events ORDER BY i`,
      );
      assert.equal(rows.length, cases.length);
      for (const row of rows) {
        const match = index.correlate(cases[row.i]!);
        const expected = match === undefined ? null : methodCode(match.method);
        const event = cases[row.i]!;
        const shown = JSON.stringify({ binding: bound, event }, (_k, v: unknown) =>
          typeof v === 'bigint' ? String(v) : v,
        );
        assert.equal(row.method, expected, shown);
        if (expected !== null) claimed++;
      }
    }
    // the matrix must exercise matches, not only misses
    assert.ok(claimed > 500, `only ${claimed} matches`);
  });
});
