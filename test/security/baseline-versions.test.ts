import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { pageAll } from '../support/telemetry.js';
import { deviationsOf, ingestInto, learn, learnUsual, seedRun, usualWork } from './baseline-support.js';

describe('baseline versions and rates', function () {
  const daemons = useDaemonFixture();

  it('makes a new version each time a name is learned, and keeps the older ones queryable', async function () {
    const daemon = await daemons.start();
    const first = await learnUsual(daemon);
    await seedRun(daemon, 'odd', '300', [
      ...usualWork,
      { event_type: 'network_connect', dst_ip: '198.51.100.7', dst_port: 8443 },
    ]);
    const second = await learn(daemon, { name: 'agent', runs: ['learn-a', 'odd'], window_s: 60 });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body['version'], 2);
    assert.notEqual(second.body['profile_sha256'], first['profile_sha256']);
    // the latest version learned from the run: nothing deviates; version 1 still sees the new address
    assert.deepEqual((await deviationsOf(daemon, 'odd', '&baseline=agent')).deviations, []);
    const old = await deviationsOf(daemon, 'odd', '&baseline=agent&version=1');
    assert.deepEqual(
      old.deviations.map((deviation) => [deviation.measure, deviation.observed, deviation.baseline.version]),
      [['destination', '198.51.100.7:8443', 1]],
    );
    assert.equal(
      (old.first['baseline'] as Record<string, unknown>)['profile_sha256'],
      first['profile_sha256'],
    );
    const one = await request(daemon.url, '/v1/security/baseline?name=agent&version=1');
    assert.deepEqual([one.status, one.body], [200, first]);
    const latest = await request(daemon.url, '/v1/security/baseline?name=agent');
    assert.deepEqual(latest.body, second.body);

    const tool = await learn(daemon, { name: 'tool:pytest', runs: ['learn-b'] });
    assert.equal(tool.body['version'], 1);
    const pages: unknown[][] = [];
    let cursor: string | null = null;
    do {
      const page: { body: Record<string, unknown> } = await request(
        daemon.url,
        `/v1/security/baselines?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      pages.push(
        (page.body['baselines'] as Record<string, unknown>[]).map((b) => [
          b['name'],
          b['version'],
          b['run_count'],
          b['window_s'],
        ]),
      );
      cursor = page.body['next_cursor'] as string | null;
    } while (cursor !== null);
    assert.deepEqual(pages, [
      [
        ['agent', 2, 2, 60],
        ['agent', 1, 2, 10],
      ],
      [['tool:pytest', 1, 1, 10]],
    ]);
    const named = await request(daemon.url, '/v1/security/baselines?name=tool:pytest');
    assert.deepEqual((named.body['baselines'] as unknown[]).length, 1);
    // no baseline named: the most recently learned one's name is used
    const recent = await deviationsOf(daemon, 'odd');
    assert.deepEqual(
      [
        (recent.first['baseline'] as Record<string, unknown>)['name'],
        (recent.first['baseline'] as Record<string, unknown>)['selection'],
      ],
      ['tool:pytest', 'most_recent'],
    );
    const missing = await request(daemon.url, '/v1/security/deviations?run=odd&version=7');
    assert.deepEqual(
      [missing.status, (missing.body['error'] as { message: string }).message],
      [404, 'baseline "tool:pytest" has no version 7'],
    );
  });

  it('reports a type whose busiest window holds more than the threshold, with the events of that window', async function () {
    const daemon = await daemons.start();
    const open = (name: string, timestamp = '2026-01-01T00:00:01Z'): Record<string, unknown> => ({
      event_type: 'file_open',
      path: `/work/src/${name}.ts`,
      flags: 'O_RDONLY',
      timestamp,
    });
    await seedRun(daemon, 'calm', '600', [open('a'), open('b'), open('c')]);
    assert.equal((await learn(daemon, { name: 'reader', runs: ['calm'] })).status, 200);
    await seedRun(daemon, 'burst', '601', [
      ...Array.from({ length: 3 }, (_v, i) => open(`early${i}`, '2026-01-01T00:00:02Z')),
      ...Array.from({ length: 40 }, (_v, i) => open(`f${i}`, `2026-01-01T00:00:2${i % 10}.5Z`)),
    ]);
    // a new binary (medium) and a new DNS name (low) beside it: the rate (low) comes after both
    await ingestInto(daemon, '601', [
      { event_type: 'execve', path: '/opt/fetch' },
      { event_type: 'dns_query', query: 'burst.example.org' },
    ]);
    const { deviations } = await deviationsOf(daemon, 'burst', '&baseline=reader');
    assert.deepEqual(
      deviations.map((deviation) => [deviation.measure, deviation.severity]),
      [
        ['binary', 'medium'],
        ['dns_name', 'low'],
        ['rate:file_open', 'low'],
      ],
    );
    // one at a time, pages merge the rate into the same order
    assert.deepEqual((await deviationsOf(daemon, 'burst', '&baseline=reader', 1)).deviations, deviations);
    const rate = deviations[2];
    assert.deepEqual(
      [
        rate!.measure,
        rate!.severity,
        rate!.observed,
        rate!.expected,
        rate!.basis.events,
        rate!.basis.window_start,
      ],
      [
        'rate:file_open',
        'low',
        40,
        { kind: 'rate', window_s: 10, peak: 3, threshold: 13 },
        40,
        '2026-01-01T00:00:20.000000000Z',
      ],
    );
    const events = new Map(
      (await pageAll(daemon.url, 'run=burst')).map((event) => [event['id'] as string, event]),
    );
    assert.equal(rate!.basis.event_ids.length, 5);
    for (const id of rate!.basis.event_ids)
      assert.match(String(events.get(id)?.['time']), /^2026-01-01T00:00:2/);
  });
});
