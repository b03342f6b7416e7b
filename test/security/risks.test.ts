import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { assertErrors, pageItems, request } from '../support/http.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';
import { useTempDir } from '../support/temp-dir.js';

/** A real sample from another system (test/fixtures: copied byte for byte from shared/data). */
const fixture = (name: string): string => readFileSync(join(packageRoot, 'test', 'fixtures', name), 'utf8');

interface Risk {
  risk_id: string;
  rule_id: string;
  decision: string;
  reason: string;
  severity: string;
  advisory: { rule_id: string; decision: string; reason: string } | null;
  tool_call_id: string | null;
  evidence_level: string;
  evidence: { event_id: string; type: string; evidence_level: string; hash: string }[];
}

/**
 * Every risk of a run, page by page: a page counts its risks only, and is full whenever more
 * follow: events the policy allowed are never in it, not even as holes.
 */
function risksOf(daemon: RunningDaemon, run: string, limit = 100): Promise<Risk[]> {
  return pageItems<Risk>(daemon.url, `/v1/security/risks?run=${run}`, 'risks', limit);
}

describe('GET /v1/security/risks (the policy judging every stored event)', function () {
  const daemons = useDaemonFixture();
  // one daemon with the default policy for the tests that read only their own runs (cgroups and
  // containers of their own); a rules file of a test's own keeps a daemon of its own
  const shared = useSharedDaemon();
  const work = useTempDir('provd-risks-');

  /** A daemon judging by a rules file of `rules`, with run `run` bound to cgroup 777. */
  async function daemonWithRules(rules: unknown[], run: string): Promise<RunningDaemon> {
    const policy = join(work.path, 'policy.json');
    writeFileSync(policy, JSON.stringify({ rules }));
    const daemon = await daemons.start({ args: ['--policy', policy] });
    await bind(daemon.url, {
      run_id: run,
      tool_call_id: 'tc',
      cgroup_id: '777',
      started_at: '2026-01-01T00:00:00Z',
    });
    return daemon;
  }

  it("turns each non-allow decision on a run's native events into a risk, with the event as evidence", async function () {
    const { daemon } = shared;
    await bind(daemon.url, {
      run_id: 'run-native',
      tool_call_id: 'tc-1',
      cgroup_id: '777',
      started_at: '2026-01-01T00:00:00Z',
    });
    const lines = [
      nativeLine({ event_type: 'execve', path: '/bin/ls', argv: ['ls', '-l'] }),
      nativeLine({ event_type: 'network_connect', dst_ip: '169.254.169.254', dst_port: 80 }),
      nativeLine({ event_type: 'network_connect', dst_ip: '10.0.0.5', dst_port: 443 }),
      nativeLine({ event_type: 'file_open', path: '/home/a/.aws/credentials', flags: 'O_RDONLY' }),
      nativeLine({ event_type: 'setuid', target_uid: 0 }),
      nativeLine({ event_type: 'ptrace', request: 'PTRACE_ATTACH', target_pid: 1 }),
      nativeLine({ event_type: 'execve', path: '/usr/bin/curl', argv: ['curl', 'http://2852039166/latest'] }),
      nativeLine({ event_type: 'network_connect', dst_ip: '203.0.113.7', dst_port: 443 }),
    ];
    const stored = await ingest(daemon.url, lines.map((line) => `${line}\n`).join(''), 'native');
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const events = await pageAll(daemon.url, 'run=run-native');
    assert.equal(events.length, lines.length);
    const risks = await risksOf(daemon, 'run-native', 2);
    assert.deepEqual(
      risks.map((risk) => [risk.rule_id, risk.decision, risk.severity, risk.evidence[0]!.type]),
      [
        ['metadata_ip', 'quarantine', 'high', 'metadata_ip'],
        ['private_cidr', 'deny', 'medium', 'private_cidr'],
        ['secret_path', 'kill', 'critical', 'secret_path'],
        ['privilege_escalation', 'quarantine', 'high', 'setuid'],
        ['ptrace', 'quarantine', 'high', 'ptrace'],
        ['metadata_ip', 'quarantine', 'high', 'execve'],
      ],
    );
    const byId = new Map(events.map((event) => [event['id'] as string, event]));
    for (const risk of risks) {
      const [evidence] = risk.evidence;
      const event = byId.get(evidence!.event_id)!;
      assert.equal(risk.risk_id, `risk_${evidence!.event_id}`);
      assert.equal(evidence!.hash, event['hash'], 'the evidence is the stored event, unchanged');
      const level = (event['correlation'] as { evidence_level: string }).evidence_level;
      assert.deepEqual([risk.evidence_level, evidence!.evidence_level], [level, level]);
      assert.equal(risk.tool_call_id, 'tc-1');
      assert.equal(risk.advisory, null);
    }
  });

  it('lists the risks of events that waited in the spool, once a binding claims them', async function () {
    const { daemon } = shared;
    await ingest(daemon.url, `${nativeLine({ event_type: 'ptrace', cgroup_id: '900' })}\n`, 'native');
    await bind(daemon.url, {
      run_id: 'run-late',
      tool_call_id: 'tc',
      cgroup_id: '900',
      started_at: '2026-01-01T00:00:00Z',
    });
    assert.deepEqual(
      (await risksOf(daemon, 'run-late')).map((risk) => [risk.rule_id, risk.tool_call_id]),
      [['ptrace', 'tc']],
    );
  });

  it('judges Falco and Tetragon events as they arrive from those producers', async function () {
    const { daemon } = shared;
    await bind(daemon.url, {
      run_id: 'run-falco',
      tool_call_id: 'tc-snake',
      container_id: 'container-snake-demo',
      started_at: '2026-06-29T10:00:00Z',
    });
    assert.equal((await ingest(daemon.url, fixture('supply-chain-exfil.jsonl'), 'falco')).status, 200);
    assert.deepEqual(
      (await risksOf(daemon, 'run-falco')).map((risk) => [risk.rule_id, risk.decision]),
      [
        ['secret_path', 'kill'],
        ['secret_path', 'kill'],
        ['metadata_ip', 'quarantine'],
        ['private_cidr', 'deny'],
      ],
    );
    // Tetragon's own documentation event, a write by vi, made to touch /etc/shadow
    const kprobe = JSON.parse(fixture('tetragon-docs-events.jsonl').split('\n')[2]!) as {
      process_kprobe: { process: { exec_id: string }; args: { file_arg?: { path: string } }[] };
    };
    kprobe.process_kprobe.args[0]!.file_arg!.path = 'etc/shadow';
    await bind(daemon.url, {
      run_id: 'run-tetragon',
      tool_call_id: 'tc-vi',
      process_id: kprobe.process_kprobe.process.exec_id,
      started_at: '2021-10-18T00:00:00Z',
    });
    assert.equal((await ingest(daemon.url, `${JSON.stringify(kprobe)}\n`, 'tetragon')).status, 200);
    assert.deepEqual(
      (await risksOf(daemon, 'run-tetragon')).map((risk) => [
        risk.rule_id,
        risk.decision,
        risk.evidence[0]!.type,
      ]),
      [['secret_path', 'kill', 'file_write']],
    );
  });

  it("lists a detect-only rule's advisory as a risk that was allowed", async function () {
    const rule = {
      id: 'watch-curl',
      decision: 'deny',
      mode: 'detect',
      reason: 'curl is watched',
      match: { commands: ['curl'] },
    };
    const daemon = await daemonWithRules([rule], 'run-detect');
    await ingest(
      daemon.url,
      `${nativeLine({ event_type: 'execve', path: '/usr/bin/curl', argv: ['curl', 'https://example.com'] })}\n`,
      'native',
    );
    const [risk, ...rest] = await risksOf(daemon, 'run-detect');
    assert.equal(rest.length, 0);
    assert.deepEqual(
      [risk!.decision, risk!.rule_id, risk!.advisory],
      ['allow', 'default_allow', { rule_id: 'watch-curl', decision: 'deny', reason: 'curl is watched' }],
    );
  });

  it("keeps a rule's reason byte for byte, whatever it holds, and the run still verifies", async function () {
    // the decisions reach the store through a CSV file: these are what such files get wrong
    const hostile = '\ufeffa "reason",\nwith\r\nlines, \u001e separators\u001e\u001e, \\ back\tslash, ü 😀';
    const daemon = await daemonWithRules(
      [
        {
          id: 'watch-curl',
          decision: 'deny',
          mode: 'detect',
          reason: `${hostile} (advisory)`,
          match: { commands: ['curl'] },
        },
        { id: 'no-ptrace', decision: 'quarantine', reason: hostile, match: { event_types: ['ptrace'] } },
      ],
      'run-reasons',
    );
    await ingest(
      daemon.url,
      `${nativeLine({ event_type: 'execve', path: '/usr/bin/curl', argv: ['curl', 'x'] })}\n` +
        `${nativeLine({ event_type: 'ptrace', target_pid: 1 })}\n`,
      'native',
    );
    const risks = await risksOf(daemon, 'run-reasons');
    assert.deepEqual(
      risks.map((risk) => [risk.rule_id, risk.reason, risk.advisory?.reason ?? null]),
      [
        ['default_allow', 'detect-only rule watch-curl matched; allowed', `${hostile} (advisory)`],
        ['no-ptrace', hostile, null],
      ],
    );
    const verified = await request(daemon.url, '/v1/graph/verify?run=run-reasons');
    assert.equal(verified.body['status'], 'ok', JSON.stringify(verified.body));
  });

  it('refuses a missing or unknown run and a cursor that is not its own', async function () {
    const { daemon } = shared;
    await bind(daemon.url, {
      run_id: 'run-a',
      tool_call_id: 'tc',
      cgroup_id: '787',
      started_at: '2026-01-01T00:00:00Z',
    });
    await bind(daemon.url, {
      run_id: 'run-b',
      tool_call_id: 'tc',
      cgroup_id: '788',
      started_at: '2026-01-01T00:00:00Z',
    });
    await ingest(
      daemon.url,
      [1, 2, 3].map(() => `${nativeLine({ event_type: 'ptrace', cgroup_id: '787' })}\n`).join(''),
      'native',
    );
    const first = await request(daemon.url, '/v1/security/risks?run=run-a&limit=1');
    assert.equal(first.status, 200);
    const cursor = first.body['next_cursor'] as string;
    assert.equal(typeof cursor, 'string');
    const cases: [string, number, string][] = [
      ['/v1/security/risks', 400, 'invalid_argument'],
      ['/v1/security/risks?run=nope', 404, 'run_not_found'],
      ['/v1/security/risks?run=run-a&cursor=%%%', 400, 'invalid_cursor'],
      [`/v1/security/risks?run=run-b&cursor=${cursor}`, 400, 'invalid_cursor'],
      ['/v1/security/risks?run=run-a&limit=0', 400, 'invalid_argument'],
    ];
    await assertErrors(daemon.url, cases);
  });
});
