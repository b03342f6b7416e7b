import assert from 'node:assert/strict';
import { execute, sql } from '../../src/store/sql.js';
import { typeCode } from '../../src/telemetry/codes.js';
import type { EventType } from '../../src/telemetry/event.js';
import { addWindows } from '../../src/telemetry/window-upsert.js';
import { listWindows, type WindowsParams } from '../../src/telemetry/windows.query.js';
import { openTestStore, type TestStore } from '../support/store.js';

const second = 1_000_000_000n;
const t0 = 1_767_225_600n * second; // 2026-01-01T00:00:00Z

/** One window row of run-w with `events` events of `type`, starting at t0 + `offsetS`. */
function delta(windowS: 10 | 60, offsetS: number, type: EventType = 'execve', events = 1) {
  const bucketNs = t0 + BigInt(offsetS) * second;
  return {
    runId: 'run-w',
    windowS,
    bucketNs,
    type: typeCode(type),
    events,
    correlated: 0,
    risky: 0,
    bytes: 0,
  };
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
  const starts = (body: Record<string, unknown>): string[] =>
    (body['windows'] as { start: string }[]).map((window) => window.start.slice(11, 19));

  it('selects the windows that overlap [from, to]: ending after from, starting by to', async function () {
    await addWindows(store.connection, [delta(10, 0), delta(10, 10), delta(10, 20), delta(10, 30)]);
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
    await addWindows(store.connection, [
      delta(10, 10, 'file_open'),
      delta(10, 0, 'execve'),
      delta(10, 10, 'execve'),
      delta(10, 0, 'dns_query'),
      delta(10, 20, 'execve'),
      delta(60, 0, 'execve', 5),
    ]);
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
    assert.equal(pages, 3);
    assert.deepEqual(seen, [
      ['00:00:00', 'execve'],
      ['00:00:00', 'dns_query'],
      ['00:00:10', 'execve'],
      ['00:00:10', 'file_open'],
      ['00:00:20', 'execve'],
    ]);
    const sixty = await list({ window: 60 });
    assert.deepEqual(sixty['windows'], [
      {
        start: '2026-01-01T00:00:00.000000000Z',
        end: '2026-01-01T00:01:00.000000000Z',
        type: 'execve',
        events: 5,
        correlated: 0,
        risky: 0,
        bytes: 0,
      },
    ]);
  });

  it('refuses a cursor issued for other bounds', async function () {
    await addWindows(store.connection, [delta(10, 0), delta(10, 10)]);
    const first = await list({ limit: 1 });
    await assert.rejects(list({ limit: 1, cursor: first['next_cursor'] as string, toNs: t0 }), {
      code: 'invalid_cursor',
    });
  });
});
