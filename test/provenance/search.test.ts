import assert from 'node:assert/strict';
import { join } from 'node:path';
import { assertErrors, bindCall, contextToken, getOk, pageThrough, recordCall } from '../support/context.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { withDatabase } from '../support/duckdb.js';
import { request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';

interface Match {
  kind: string;
  run_id: string | null;
  id: string;
  type?: string;
  source: string;
  evidence_level: string;
  field: string;
  value: string;
}

/** Ingests native lines with the token and asserts they were accepted. */
async function ingestLines(daemon: RunningDaemon, lines: string[]): Promise<void> {
  const answer = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
    method: 'POST',
    headers: { authorization: `Bearer ${contextToken}` },
    body: lines.map((line) => `${line}\n`).join(''),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

const long = `/data/${'x'.repeat(300)}/example.com/${'y'.repeat(300)}`;

describe('GET /api/search/sources (where a text appears in the evidence)', function () {
  const fixture = useDaemonFixture();

  /** Two bound runs, their events, an event no binding claims, and a recorded tool call. */
  async function fillStore(daemon: RunningDaemon): Promise<void> {
    const started_at = '2026-01-01T00:00:00Z';
    await bindCall(daemon, { run_id: 'run-s', tool_call_id: 'tc-1', cgroup_id: '777', started_at });
    await bindCall(daemon, { run_id: 'run-t', tool_call_id: 'tc-9', cgroup_id: '888', started_at });
    const args = ['--host', 'example.com'];
    await recordCall(daemon, {
      run_id: 'run-s',
      tool_call_id: 'tc-2',
      command: 'fetch',
      args,
      execute: false,
    });
    await ingestLines(daemon, [
      nativeLine({ event_type: 'execve', path: '/usr/bin/curl', argv: ['curl', 'http://169.254.169.254/x'] }),
      nativeLine({ event_type: 'dns_query', query: 'api.example.com' }),
      nativeLine({ event_type: 'network_connect', dst_ip: '10.0.0.5', dst_port: 443 }),
      nativeLine({ event_type: 'file_open', path: '/home/a/example.com.txt', flags: 'O_RDONLY' }),
      nativeLine({ event_type: 'file_rename', path: '/tmp/a', new_path: '/tmp/example.com.bak' }),
      // the text only where search does not look: the process name, a TLS body
      nativeLine({ event_type: 'file_open', path: '/etc/hosts', comm: 'example.com' }),
      nativeLine({ event_type: 'tls_write', data: 'GET / HTTP/1.1\r\nHost: example.com\r\n\r\n' }),
      nativeLine({ event_type: 'file_open', path: '/tmp/we"ird\\name' }),
      nativeLine({ event_type: 'file_open', path: long }),
      nativeLine({ event_type: 'file_open', path: '/srv/example.com/t', cgroup_id: '888' }),
      nativeLine({ event_type: 'file_open', path: '/srv/example.com/none', cgroup_id: '999' }),
    ]);
  }

  it('searches one window of positions per page, and says how far it got, until it reaches the end', async function () {
    let daemon = await fixture.start({ authToken: contextToken });
    await bindCall(daemon, { run_id: 'run-w', tool_call_id: 'tc', cgroup_id: '777' });
    await ingestLines(daemon, [
      nativeLine({ event_type: 'file_open', path: '/a/needle-1' }),
      nativeLine({ event_type: 'file_open', path: '/b/needle-2' }),
      nativeLine({ event_type: 'file_open', path: '/c/needle-far' }),
    ]);
    await daemon.stop();
    // the last event moved two windows on, as if 600,000 events had come between
    await withDatabase(join(fixture.dataDir, 'provd.duckdb'), async (connection) => {
      await connection.run(`UPDATE events SET seq = seq + 600000 WHERE attrs LIKE '%needle-far%'`);
    });
    daemon = await fixture.start({ authToken: contextToken });
    const pages: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page = await getOk(
        daemon,
        `/api/search/sources?q=needle&run=run-w${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      pages.push(page);
      cursor = page['next_cursor'] as string | null;
    } while (cursor !== null);
    const scans = pages.map((page) => page['scan'] as { position: number; end: number; window: number });
    assert.deepEqual(
      pages.map((page) => [page['count'], page['has_more']]),
      [
        [2, true],
        [0, true],
        [1, false],
      ],
    );
    assert.deepEqual(
      scans.map((scan) => scan.position),
      [262144, 524288, scans[0]!.end],
    );
    assert.ok(scans.every((scan) => scan.window === 262144 && scan.end > 600000));
  });

  describe('of one store filled once', function () {
    // both tests only search the same store: one daemon, filled once before them
    const shared = useSharedDaemon({ authToken: contextToken });
    before(async function () {
      await fillStore(shared.daemon);
    });

    it('finds a text in tool calls, then in the paths, targets, argv, destinations and DNS names of events', async function () {
      const { daemon } = shared;
      const all = (await pageThrough(
        daemon,
        '/api/search/sources?q=example.com',
        'matches',
      )) as unknown as Match[];
      assert.deepEqual(
        all.map((match) => [match.kind, match.run_id, match.type ?? null, match.field, match.evidence_level]),
        [
          ['tool_call', 'run-s', null, 'args', 'context_asserted'],
          ['event', 'run-s', 'dns_query', 'query', 'kernel_correlated'],
          ['event', 'run-s', 'file_open', 'path', 'kernel_correlated'],
          ['event', 'run-s', 'file_rename', 'new_path', 'kernel_correlated'],
          ['event', 'run-s', 'file_open', 'path', 'kernel_correlated'],
          ['event', 'run-t', 'file_open', 'path', 'kernel_correlated'],
          ['event', null, 'file_open', 'path', 'uncorrelated'],
        ],
      );
      assert.deepEqual(
        all.map((match) => match.source),
        ['record', ...Array<string>(6).fill('native_jsonl')],
      );
      const cut = all[4]!.value;
      assert.ok(
        cut.length <= 256 && cut.startsWith('…') && cut.endsWith('…') && cut.includes('/example.com/'),
        cut,
      );
      // ids are the events' own: each one-by-one page holds the same matches
      const events = await getOk(daemon, '/v1/telemetry/events?run=run-s');
      const ids = new Set((events['events'] as { id: string }[]).map((event) => event.id));
      for (const match of all.slice(1, 5)) assert.ok(ids.has(match.id), match.id);
      const paged = await pageThrough(daemon, '/api/search/sources?q=example.com&limit=1', 'matches');
      assert.deepEqual(paged, all);
      const inRun = (await pageThrough(
        daemon,
        '/api/search/sources?q=example.com&run=run-t',
        'matches',
      )) as unknown as Match[];
      assert.deepEqual(
        inRun.map((match) => [match.run_id, match.value]),
        [['run-t', '/srv/example.com/t']],
      );
      const argv = (await getOk(daemon, '/api/search/sources?q=169.254'))['matches'] as Match[];
      assert.deepEqual(
        argv.map((match) => [match.field, match.value]),
        [['argv', 'http://169.254.169.254/x']],
      );
      const destination = (await getOk(daemon, '/api/search/sources?q=10.0.0.'))['matches'] as Match[];
      assert.deepEqual(
        destination.map((match) => [match.type, match.field, match.value]),
        [['private_cidr', 'dst_ip', '10.0.0.5']],
      );
      const quoted = (await getOk(daemon, `/api/search/sources?q=${encodeURIComponent('we"ird\\n')}`))[
        'matches'
      ] as Match[];
      assert.deepEqual(
        quoted.map((match) => match.value),
        ['/tmp/we"ird\\name'],
      );
      assert.deepEqual((await getOk(daemon, '/api/search/sources?q=EXAMPLE.COM'))['matches'], []);
    });

    it('refuses a missing or malformed text, an unknown run and a cursor of another search', async function () {
      const { daemon } = shared;
      const first = await getOk(daemon, '/api/search/sources?q=example.com&limit=1');
      const cursor = String(first['next_cursor']);
      await assertErrors(daemon, [
        ['/api/search/sources', 400, 'invalid_argument'],
        ['/api/search/sources?q=', 400, 'invalid_argument'],
        ['/api/search/sources?q=a%01b', 400, 'invalid_argument'],
        [`/api/search/sources?q=${'x'.repeat(257)}`, 400, 'invalid_argument'],
        ['/api/search/sources?q=a&limit=1001', 400, 'invalid_argument'],
        ['/api/search/sources?q=a&run=nope', 404, 'run_not_found'],
        ['/api/search/sources?q=a&cursor=%%%', 400, 'invalid_cursor'],
        [`/api/search/sources?q=example&cursor=${cursor}`, 400, 'invalid_cursor'],
        [`/api/search/sources?q=example.com&run=run-s&cursor=${cursor}`, 400, 'invalid_cursor'],
      ]);
    });
  });
});
