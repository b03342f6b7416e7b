/**
 * The host's own DNS resolvers (resolv.conf nameservers) under the built-in policy: DNS to them is
 * no private_cidr risk, at ingest and at the gate alike; another port to them, or DNS to another
 * private address, still is. The resolv.conf is one the test writes (--resolv-conf): no traffic is
 * sent anywhere, the connects are ingested as a producer reports them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameservers } from '../../src/security/policy/host-resolvers.js';
import { runDaemonCli } from '../support/cli.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { pageItems, request } from '../support/http.js';
import { bind, ingest, nativeLine } from '../support/telemetry.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'resolver-test-token';
const auth = { authorization: `Bearer ${token}` };

/** A resolv.conf as systemd-resolved writes its upstreams, with what else such files hold. */
const resolvConf = [
  '# This is /run/systemd/resolve/resolv.conf managed by man:systemd-resolved(8).',
  'nameserver 10.9.8.7',
  'nameserver 192.168.1.1 ; the home router',
  'nameserver fe80::1%eth0',
  'nameserver not-an-address',
  'search corp.example',
  'options edns0 trust-ad',
  '',
].join('\n');

interface Risk {
  rule_id: string;
  evidence: { type: string; event_id: string }[];
}

describe("the host's own resolvers under the built-in policy", function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-resolvers-', { per: 'suite' });

  const evaluate = async (daemon: RunningDaemon, body: Record<string, unknown>): Promise<string[]> => {
    const answer = await request(daemon.url, '/v1/security/evaluate', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return [answer.body['decision'] as string, answer.body['rule_id'] as string];
  };

  it('reads the nameserver lines of a resolv.conf, and nothing else of it', function () {
    assert.deepEqual(nameservers(resolvConf), ['10.9.8.7', '192.168.1.1', 'fe80::1']);
  });

  it('judges no DNS to them a private_cidr risk, at ingest and at the gate; another port or address still is', async function () {
    const file = join(work.path, 'resolv.conf');
    writeFileSync(file, resolvConf);
    const daemon = await fixture.start({ args: ['--resolv-conf', file] });

    const health = (await request(daemon.url, '/v1/health')).body;
    const check = (health['checks'] as Record<string, Record<string, unknown>>)['host_resolvers'];
    assert.deepEqual(check, {
      status: 'ok',
      addresses: ['10.9.8.7', '192.168.1.1', 'fe80::1'],
      paths: [file],
    });

    await bind(daemon.url, { run_id: 'run-dns', tool_call_id: 'tc-1', cgroup_id: '777' });
    const connect = (dst: string, port: number, i: number, type = 'network_connect'): string =>
      nativeLine({
        event_type: type,
        timestamp: `2026-01-01T00:00:0${i}Z`,
        comm: 'curl',
        path: undefined,
        dst_ip: dst,
        dst_port: port,
        ...(type === 'dns_query' && { query: 'example.com' }),
      });
    const lines = [
      connect('10.9.8.7', 53, 1), // a lookup over UDP, connect()ed as glibc does: no risk
      connect('::ffff:192.168.1.1', 53, 2), // the same resolver, as a dual-stack socket names it
      connect('192.168.1.1', 0, 3, 'dns_query'), // the query itself: no risk
      connect('10.9.8.7', 443, 4), // the resolver's address on another port: judged
      connect('10.9.8.8', 53, 5), // DNS to an address no resolv.conf names: judged
    ];
    const ingested = await ingest(daemon.url, lines.join('\n'), 'native');
    assert.equal(ingested.body['accepted'], 5, JSON.stringify(ingested.body));
    const risks = await pageItems<Risk>(daemon.url, '/v1/security/risks?run=run-dns', 'risks', 100);
    assert.deepEqual(
      risks.map((risk) => [risk.rule_id, risk.evidence[0]?.type]),
      [
        ['private_cidr', 'private_cidr'],
        ['private_cidr', 'private_cidr'],
      ],
    );

    // the gate decides as ingest did: the same engine, the same resolvers
    assert.deepEqual(
      await evaluate(daemon, { event_type: 'network_connect', dst_ip: '10.9.8.7', dst_port: 53 }),
      ['allow', 'host_resolver'],
    );
    assert.deepEqual(await evaluate(daemon, { event_type: 'dns_query', dst_ip: '192.168.1.1' }), [
      'allow',
      'host_resolver',
    ]);
    assert.deepEqual(
      await evaluate(daemon, { event_type: 'network_connect', dst_ip: '10.9.8.7', dst_port: 443 }),
      ['deny', 'private_cidr'],
    );
    assert.deepEqual(await evaluate(daemon, { event_type: 'network_connect', dst_ip: '10.9.8.7' }), [
      'deny',
      'private_cidr',
    ]);
    assert.deepEqual(
      await evaluate(daemon, { event_type: 'network_connect', dst_ip: '10.9.8.8', dst_port: 53 }),
      ['deny', 'private_cidr'],
    );
    const refused = await request(daemon.url, '/v1/security/evaluate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'network_connect', dst_ip: '10.9.8.7', dst_port: 70000 }),
    });
    assert.equal(refused.status, 400);
  });

  it('says so in health when no resolver is configured, and judges DNS into private space as before', async function () {
    const file = join(work.path, 'empty.conf');
    writeFileSync(file, '# no nameserver here\n');
    const daemon = await fixture.start({ authToken: token, args: ['--resolv-conf', file] });
    const health = (await request(daemon.url, '/v1/health', { headers: auth })).body;
    const check = (health['checks'] as Record<string, Record<string, unknown>>)['host_resolvers'];
    assert.equal(check?.['status'], 'unavailable');
    assert.match(String(check?.['message']), /no nameserver found/);
    assert.deepEqual([check?.['addresses'], check?.['paths']], [[], [file]]);
    assert.equal(health['status'], 'ok', 'an optional capability, not a degradation');
    const open = (await request(daemon.url, '/v1/health')).body;
    const shown = (open['checks'] as Record<string, Record<string, unknown>>)['host_resolvers'];
    assert.equal(shown?.['paths'], undefined, 'no path without the token');
    assert.deepEqual(
      await evaluate(daemon, { event_type: 'network_connect', dst_ip: '10.9.8.7', dst_port: 53 }),
      ['deny', 'private_cidr'],
    );
  });

  it('refuses to start with a --resolv-conf it cannot read, naming it', async function () {
    const missing = join(work.path, 'absent.conf');
    const { code, stderr } = await runDaemonCli(join(work.path, 'd'), ['--resolv-conf', missing]);
    assert.equal(code, 2);
    assert.match(stderr, /--resolv-conf .*absent\.conf: cannot be read/);
  });
});
