/**
 * A decision shows whether it was enforced: `provd record` runs a real command through the real
 * daemon, another sensor's events (ingested) make the policy decide `kill` on it, and `provd risks`,
 * `provd responses` and `provd timeline` say beside the decision what became of it: killed, or not,
 * because the command had already ended, or because provd did not run it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { runCli, type CliRun } from '../support/cli.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { recordCgroupId } from '../support/record-cgroup.js';
import { nativeLine } from '../support/telemetry.js';

const token = 'responses-cli-token';
const auth = { authorization: `Bearer ${token}` };

describe('provd responses, and the outcome beside each decision in risks and the timeline', function () {
  const fixture = useDaemonFixture();
  // one daemon with the token for the tests that read only runs of their own; the one that
  // restarts on its store keeps its own
  const shared = useSharedDaemon({ authToken: token });
  let cwd = '';
  let cgroupRoot = '';
  before(function () {
    const cgroups = probeRecordCgroupRoot();
    if (cgroups.status !== 'ok') {
      process.stderr.write(`      skipped: recorded commands get no cgroup here: ${cgroups.message}\n`);
      this.skip();
    }
    cgroupRoot = cgroups.path;
    cwd = mkdtempSync(join(tmpdir(), 'provd-responses-cli-')); // empty: its snapshots cost nothing
  });
  after(function () {
    if (cwd !== '') rmSync(cwd, { recursive: true, force: true });
  });

  const cli = (daemon: RunningDaemon, args: string[]): Promise<CliRun> =>
    runCli([...args, '--url', daemon.url], { env: { PROVD_AUTH_TOKEN: token } });

  /** `provd record --run RUN --tool-call tc-RUN -- sleep SECONDS`, running; and its cgroup's id. */
  async function record(
    daemon: RunningDaemon,
    run: string,
    seconds: string,
  ): Promise<{ done: Promise<CliRun>; cgroup: string }> {
    const done = runCli(['record', '--run', run, '--tool-call', `tc-${run}`, '--', 'sleep', seconds], {
      env: { PROVD_AUTH_TOKEN: token, PROVD_URL: daemon.url },
      cwd,
    });
    return { done, cgroup: await recordCgroupId(cgroupRoot, `tc-${run}`) };
  }

  /** Another sensor's report that a process of `cgroup` read a credential, at `time`. */
  async function readSecret(daemon: RunningDaemon, cgroup: string, time: string): Promise<void> {
    const line = nativeLine({
      event_type: 'file_open',
      path: '/root/.netrc',
      cgroup_id: cgroup,
      timestamp: time,
    });
    const ingested = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers: auth,
      body: line,
    });
    assert.equal(ingested.body['accepted'], 1, JSON.stringify(ingested.body));
  }

  it('says a kill was enforced on a command provd ran, and names what it killed', async function () {
    const { daemon } = shared;
    const { done, cgroup } = await record(daemon, 'run-kill', '60');
    await readSecret(daemon, cgroup, new Date().toISOString());
    const recorded = await done;
    assert.notEqual(recorded.code, 0, 'the command was killed');
    const outcome = `kill: enforced, 1 process of cgroup ${cgroup} killed`;

    const risks = await cli(daemon, ['risks', 'run-kill']);
    assert.equal(risks.code, 0, risks.stderr);
    assert.match(
      risks.stdout,
      new RegExp(`^\\S+ \\S+ +critical +${outcome} +secret_path +tc-run-kill `, 'm'),
    );

    const responses = await cli(daemon, ['responses', 'run-kill']);
    assert.equal(responses.code, 0, responses.stderr);
    const [header, line, ...rest] = responses.stdout.trimEnd().split('\n');
    assert.match(header!, /^DECISION +STATUS +ACTOR +TARGET +RULE +TOOL CALL +RISK +REASON$/);
    assert.match(
      line!,
      new RegExp(
        `^${outcome} +enforced +provd +cgroup ${cgroup} +secret_path +tc-run-kill +risk_\\S+ +sent SIGKILL`,
      ),
    );
    assert.equal(rest.length, 0);
    const json = await cli(daemon, ['responses', 'run-kill', '--json']);
    const body = await request(daemon.url, '/v1/security/responses?run=run-kill', { headers: auth });
    assert.deepEqual(JSON.parse(json.stdout), body.body);

    const timeline = await cli(daemon, ['timeline', 'run-kill']);
    assert.equal(timeline.code, 0, timeline.stderr);
    assert.match(timeline.stdout, new RegExp(`secret_path /root/\\.netrc \\[${outcome}\\]\\n`));
    const entries = (await request(daemon.url, '/v1/timeline?run=run-kill', { headers: auth })).body[
      'entries'
    ] as { kind: string; risk?: { decision: string; response: { status: string } } | null }[];
    assert.deepEqual(
      entries.filter((entry) => entry.kind === 'event').map((entry) => entry.risk?.response.status ?? null),
      ['enforced'],
    );
  });

  it('says a kill was not enforced when the command had ended before its event was judged', async function () {
    const daemon = await fixture.start({ authToken: token });
    const { done, cgroup } = await record(daemon, 'run-ended', '1');
    const started = new Date().toISOString(); // while it runs: its binding claims the event
    assert.equal((await done).code, 0, 'the command ended on its own');
    await readSecret(daemon, cgroup, started); // judged now, after the command ended

    const outcome = 'kill: not enforced, the command had ended';
    const risks = await cli(daemon, ['risks', 'run-ended']);
    assert.match(risks.stdout, new RegExp(`critical +${outcome} +secret_path`));
    const responses = await cli(daemon, ['responses', 'run-ended']);
    assert.match(
      responses.stdout,
      new RegExp(
        `^${outcome} +not_enforced +provd +cgroup ${cgroup} +secret_path +tc-run-ended +risk_\\S+ +the command had ended`,
        'm',
      ),
    );
    const timeline = await cli(daemon, ['timeline', 'run-ended']);
    assert.match(timeline.stdout, new RegExp(`\\[${outcome}\\]\\n`));

    // a daemon started again on the store knows the run holds a command it ran, and says the same
    await daemon.stop();
    const again = await fixture.start({ authToken: token });
    const reread = await cli(again, ['risks', 'run-ended']);
    assert.match(reread.stdout, new RegExp(`critical +${outcome} +secret_path`));
  });

  it('says a decision on a process provd did not run is the caller to carry out, and prints none for a run without risks', async function () {
    const { daemon } = shared;
    const bound = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-other', tool_call_id: 'tc-agent', cgroup_id: '777' }),
    });
    assert.equal(bound.status, 200);
    await readSecret(daemon, '777', '2026-01-01T00:00:01Z');
    const responses = await cli(daemon, ['responses', 'run-other']);
    assert.match(
      responses.stdout,
      /^kill: not enforced, not a command provd ran +recommended +caller +cgroup 777 +secret_path +tc-agent /m,
    );
    const risks = await cli(daemon, ['risks', 'run-other']);
    assert.match(risks.stdout, /critical +kill: not enforced, not a command provd ran +secret_path/);

    const quiet = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'run-quiet', tool_call_id: 'tc-q', cgroup_id: '778' }),
    });
    assert.equal(quiet.status, 200);
    const none = await cli(daemon, ['responses', 'run-quiet']);
    assert.deepEqual([none.code, none.stdout], [0, 'no responses in run run-quiet: it has no risks\n']);
    const unknown = await cli(daemon, ['responses', 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /run_not_found/);
    const usage = await cli(daemon, ['responses', 'run-other', '--limit', '0']);
    assert.equal(usage.code, 2);
  });
});
