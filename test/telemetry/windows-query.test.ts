import assert from 'node:assert/strict';
import { execute, sql } from '../../src/store/sql.js';
import type { EventType } from '../../src/model/event.js';
import { buildCorrelations } from '../../src/telemetry/binding-index.js';
import { isBindRequestError, parseBindRequest } from '../../src/telemetry/binding.js';
import { countWindows } from '../../src/telemetry/window-upsert.sql.js';
import { listWindows, type WindowsParams } from '../../src/telemetry/windows.sql.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

const second = 1_000_000_000n;
const t0 = 1_767_225_600n * second; // 2026-01-01T00:00:00Z

/** An event of run-w of `type`, `offsetS` seconds after t0. */
function at(offsetS: number, type: EventType = 'execve'): { offsetS: number; type: EventType } {
  return { offsetS, type };
}

describe('listWindows', function () {
  let store: TestStore;
  beforeEach(async function () {
    store = await openTestStore();
    await execute(store.connection, sql`INSERT INTO runs (run_id, first_seen_ns) VALUES ('run-w', 0)`);
  });
  afterEach(function () {
    store.close();
  });

  async function list(params: Partial<WindowsParams>): Promise<Record<string, unknown>> {
    const body = await listWindows(
      store.connection,
      { run: 'run-w', window: 10, type: null, fromNs: null, toNs: null, limit: 100, cursor: null, ...params },
      3,
    );
    return JSON.parse(body) as Record<string, unknown>;
  }
  /** Stores events of run-w (committed as one batch) and counts them into their windows, as a commit does. */
  async function commit(events: { offsetS: number; type: EventType }[]): Promise<void> {
    const binding = parseBindRequest({ run_id: 'run-w', tool_call_id: 'tc-w', cgroup_id: '7' }, 1n);
    if (isBindRequestError(binding)) throw new Error(binding.message);
    const from = store.nextSeq;
    const parsed = events.map(({ offsetS, type }) =>
      testEvent({ type, at: new Date(Number((t0 + BigInt(offsetS) * second) / 1_000_000n)).toISOString() }),
    );
    await store.insert(`b${from}`, parsed, buildCorrelations(binding).cgroup);
    await countWindows(store.connection, from, store.nextSeq);
  }
  const starts = (body: Record<string, unknown>): string[] =>
    (body['windows'] as { start: string }[]).map((window) => window.start.slice(11, 19));

  it('selects the windows that overlap [from, to]: ending after from, starting by to', async function () {
    await commit([at(0), at(10), at(20), at(30)]);
    // the window [00:00, 00:10) ends exactly at from: it does not overlap; [00:20, 00:30) starts at to: it does
    const body = await list({ fromNs: t0 + 10n * second, toNs: t0 + 20n * second });
    assert.deepEqual(starts(body), ['00:00:10', '00:00:20']);
    assert.deepEqual(starts(await list({ fromNs: t0 + 10n * second - 1n })), [
      '00:00:00',
      '00:00:10',
      '00:00:20',
      '00:00:30',
    ]);
    assert.deepEqual(starts(await list({ toNs: t0 + 20n * second - 1n })), ['00:00:00', '00:00:10']);
  });

  it('pages by window start, then type, without gaps or repeats, and keeps the 60 s windows apart', async function () {
    await commit([at(10, 'file_open'), at(0), at(10), at(0, 'dns_query')]);
    await commit([at(20), at(5), at(59), at(60)]); // a second commit adds to the windows of the first
    const seen: [string, string][] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: Record<string, unknown> = await list({ limit: 2, cursor });
      for (const window of body['windows'] as { start: string; type: string }[])
        seen.push([window.start.slice(11, 19), window.type]);
      cursor = body['next_cursor'] as string | null;
      assert.equal(body['has_more'], cursor !== null);
      pages++;
    } while (cursor !== null);
    assert.equal(pages, 4);
    assert.deepEqual(seen, [
      ['00:00:00', 'execve'],
      ['00:00:00', 'dns_query'],
      ['00:00:10', 'execve'],
      ['00:00:10', 'file_open'],
      ['00:00:20', 'execve'],
      ['00:00:50', 'execve'],
      ['00:01:00', 'execve'],
    ]);
    const first10 = (await list({ limit: 1 }))['windows'] as { events: number; correlated: number }[];
    assert.deepEqual(first10[0], {
      start: '2026-01-01T00:00:00.000000000Z',
      end: '2026-01-01T00:00:10.000000000Z',
      type: 'execve',
      events: 2, // at 0 s and at 5 s, from two commits
      correlated: 2,
      risky: 0,
      bytes: 0,
    });
    const sixty = await list({ window: 60 });
    const counts = (sixty['windows'] as { start: string; type: string; events: number }[]).map((window) => [
      window.start.slice(11, 19),
      window.type,
      window.events,
    ]);
    assert.deepEqual(counts, [
      ['00:00:00', 'execve', 5],
      ['00:00:00', 'file_open', 1],
      ['00:00:00', 'dns_query', 1],
      ['00:01:00', 'execve', 1],
    ]);
  });

  it('counts an event before 1970 into the window that holds it, not the one after', async function () {
    await commit([at(-1_767_225_605)]); // 1969-12-31T23:59:55Z
    const ten = (await list({ fromNs: -100n * second, toNs: 0n }))['windows'] as {
      start: string;
      end: string;
    }[];
    assert.deepEqual(
      ten.map((window) => [window.start, window.end]),
      [['1969-12-31T23:59:50.000000000Z', '1970-01-01T00:00:00.000000000Z']],
    );
    const sixty = (await list({ window: 60, fromNs: -100n * second, toNs: 0n }))['windows'] as {
      start: string;
    }[];
    assert.deepEqual(
      sixty.map((window) => window.start),
      ['1969-12-31T23:59:00.000000000Z'],
    );
  });

  it('refuses a cursor issued for other bounds', async function () {
    await commit([at(0), at(10)]);
    const first = await list({ limit: 1 });
    await assert.rejects(list({ limit: 1, cursor: first['next_cursor'] as string, toNs: t0 }), {
      code: 'invalid_cursor',
    });
  });
});
