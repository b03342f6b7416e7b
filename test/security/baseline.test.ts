import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { bind, pageAll } from '../support/telemetry.js';
import { deviationsOf, ingestInto, learnUsual, seedRun, usualWork } from './baseline-support.js';

describe('behaviour baselines and GET /v1/security/deviations', function () {
  const daemons = useDaemonFixture();

  it('learns a profile from runs that only work under /work: binaries, prefixes, destinations, names, rates', async function () {
    const daemon = await daemons.start();
    const baseline = await learnUsual(daemon);
    assert.equal(baseline['schema_version'], 'provenance.baseline/v1');
    assert.deepEqual(
      [baseline['name'], baseline['version'], baseline['runs']],
      ['agent', 1, ['learn-a', 'learn-b']],
    );
    const profile = baseline['profile'] as Record<
      string,
      { values: { value: string; runs: number; events: number }[] }
    >;
    const values = (measure: string): [string, number, number][] =>
      profile[measure]!.values.map((entry) => [entry.value, entry.runs, entry.events]);
    assert.deepEqual(values('binary'), [
      ['/usr/bin/git', 2, 3],
      ['/usr/bin/node', 2, 3],
    ]);
    assert.deepEqual(values('read_prefix'), [
      ['/work', 2, 3],
      ['/work/src', 2, 3],
    ]);
    assert.deepEqual(values('write_prefix'), [['/work/dist', 2, 3]]);
    assert.deepEqual(values('destination'), [['104.16.0.35:443', 2, 3]]);
    assert.deepEqual(values('dns_name'), [['registry.npmjs.org', 2, 3]]);
    const rates = baseline['profile'] as {
      rates: { window_s: number; peaks: { type: string; events: number }[] };
    };
    assert.equal(rates.rates.window_s, 10);
    // learn-a did its work twice in one window: two opens each time
    assert.deepEqual(
      rates.rates.peaks.map((peak) => [peak.type, peak.events]),
      [
        ['dns_query', 2],
        ['execve', 4],
        ['file_open', 4],
        ['file_write', 2],
        ['network_connect', 2],
      ],
    );
    const hash = 'sha256:' + createHash('sha256').update(canonicalJson(baseline['profile'])).digest('hex');
    assert.equal(baseline['profile_sha256'], hash);
  });

  it("reports a read of ~/.ssh and a new destination, each with the run's own events as basis", async function () {
    const daemon = await daemons.start();
    await learnUsual(daemon);
    await seedRun(daemon, 'odd', '300', [
      ...usualWork,
      { event_type: 'file_open', path: '/root/.ssh/id_rsa', flags: 'O_RDONLY' },
      { event_type: 'network_connect', dst_ip: '198.51.100.7', dst_port: 8443 },
    ]);
    // an event that waited in the spool joins the run when a binding claims it
    await ingestInto(daemon, '309', [{ event_type: 'dns_query', query: 'exfil.example.net' }]);
    await bind(daemon.url, { run_id: 'odd', tool_call_id: 'tc-late', cgroup_id: '309' });
    // a second request of the same run: its rows merge with the first's
    await ingestInto(daemon, '300', [
      { event_type: 'file_open', path: '/work/src/../../root/.ssh/id_rsa', flags: 'O_RDONLY' },
    ]);
    const { first, deviations } = await deviationsOf(daemon, 'odd', '&baseline=agent');
    assert.equal(first['status'], 'compared');
    assert.deepEqual(
      [
        (first['baseline'] as Record<string, unknown>)['selection'],
        (first['baseline'] as Record<string, unknown>)['learned_from_run'],
      ],
      ['requested', false],
    );
    assert.deepEqual(
      deviations.map((deviation) => [
        deviation.measure,
        deviation.observed,
        deviation.severity,
        deviation.basis.events,
      ]),
      [
        // the policy judged both reads (secret_path, kill): the deviation is high
        ['read_prefix', '/root/.ssh', 'high', 2],
        ['destination', '198.51.100.7:8443', 'medium', 1],
        ['dns_name', 'exfil.example.net', 'low', 1],
      ],
    );
    const events = new Map(
      (await pageAll(daemon.url, 'run=odd')).map((event) => [event['id'] as string, event]),
    );
    const [ssh, destination] = deviations;
    assert.equal(ssh!.basis.flagged_events, 2);
    assert.deepEqual(
      ssh!.basis.event_ids.map((id) => (events.get(id)?.['attrs'] as { path: string }).path),
      ['/root/.ssh/id_rsa', '/work/src/../../root/.ssh/id_rsa'],
    );
    assert.deepEqual(
      destination!.basis.event_ids.map((id) => (events.get(id)?.['attrs'] as { dst_ip: string }).dst_ip),
      ['198.51.100.7'],
    );
    assert.deepEqual(ssh!.expected, {
      kind: 'values',
      values: ['/work', '/work/src'],
      distinct: 2,
      truncated: false,
    });
    assert.deepEqual(destination!.baseline, { name: 'agent', version: 1 });
    assert.match(destination!.reason, /connected to 198\.51\.100\.7:8443/);
  });

  it('reports none for a run within its baseline, nor for a run it was learned from', async function () {
    const daemon = await daemons.start();
    await learnUsual(daemon);
    await seedRun(daemon, 'within', '400', [
      { event_type: 'execve', path: '/usr/bin/git', argv: ['git', 'diff'] },
      { event_type: 'file_open', path: '/work/src/other.ts', flags: 'O_RDONLY' },
      { event_type: 'network_connect', dst_ip: '104.16.0.35', dst_port: 443 },
    ]);
    const within = await deviationsOf(daemon, 'within');
    assert.deepEqual([within.first['status'], within.deviations], ['compared', []]);
    // no baseline named: the most recently learned one's name, and the answer says so
    assert.equal((within.first['baseline'] as Record<string, unknown>)['selection'], 'most_recent');
    const learned = await deviationsOf(daemon, 'learn-a', '&baseline=agent&version=1');
    assert.deepEqual(learned.deviations, []);
    assert.equal((learned.first['baseline'] as Record<string, unknown>)['learned_from_run'], true);
  });

  it('answers no_baseline, not an error, while no baseline is learned', async function () {
    const daemon = await daemons.start();
    await seedRun(daemon, 'alone', '500', usualWork);
    const { status, body } = await request(daemon.url, '/v1/security/deviations?run=alone');
    assert.equal(status, 200);
    assert.deepEqual(
      [body['status'], body['baseline'], body['deviations'], body['next_cursor']],
      ['no_baseline', null, [], null],
    );
  });
});
