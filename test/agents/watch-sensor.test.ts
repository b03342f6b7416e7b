/**
 * provd watch with the eBPF sensor on (capture agents, the default): what a watched command and a
 * real agent do is in their run, bound by the kernel's cgroup id. These tests start the sensor
 * (`sensor: true`) with the default capture, which stores only the watched agents' cgroups, so they
 * run beside other files; they skip, saying why, without root, BTF or a cgroup.
 */
// run-suites: capture agents only
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { agentMissing } from '../support/agents/installed-agents.js';
import { runAgent } from '../support/agents/run-agent.js';
import { runCli } from '../support/cli.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { awaitEvents, type StoredEvent } from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';
import { skipWithoutWatchSensor } from '../support/watch-sensor.js';

const token = 'watch-sensor-token';
const auth = { authorization: `Bearer ${token}` };

/** The cgroup id the run's watch binding names (its context entry's summary). */
async function boundCgroup(url: string, run: string): Promise<string> {
  const { body } = await request(url, `/v1/context/entries?run=${run}`, { headers: auth });
  const summaries = (body['entries'] as { summary: string }[]).map((entry) => entry.summary);
  const bound = summaries
    .map((summary) =>
      /^binding of tool call agent \(control_plane, confidence 1\) on cgroup_id (\d+)$/.exec(summary),
    )
    .find((match) => match !== null);
  assert.ok(bound, summaries.join('\n'));
  return bound[1]!;
}

/** Each event is the watch binding's: its cgroup, method cgroup, kernel_correlated, tool call agent. */
function assertBound(events: (StoredEvent | undefined)[], cgroup: string): void {
  for (const event of events) {
    assert.ok(event, 'an event looked for is missing');
    assert.deepEqual(
      [event.tool_call_id, event.correlation.method, event.correlation.evidence_level, event['cgroup_id']],
      ['agent', 'cgroup', 'kernel_correlated', cgroup],
      JSON.stringify(event),
    );
  }
}

describe('provd watch with the sensor', function () {
  this.timeout(240_000);
  const shared = useSharedDaemon({ sensor: true, authToken: token });
  const work = useTempDir('provd-watch-sensor-');
  before(skipWithoutWatchSensor);

  it("binds the command's first exec, its child's exec and the child's file write to the run", async function () {
    const out = join(work.path, 'child-wrote.txt');
    const script = `sh -c 'echo x > ${out}'; /bin/true watched-marker`;
    const watched = await runCli(['watch', '--run', 'run-sensed', '--', 'sh', '-c', script], {
      env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token },
    });
    assert.equal(watched.code, 0, watched.stderr);
    const cgroup = await boundCgroup(shared.daemon.url, 'run-sensed');
    const first = (all: StoredEvent[]) =>
      all.find((event) => event.type === 'execve' && (event.attrs['argv'] as string[])[2] === script);
    const child = (all: StoredEvent[]) =>
      all.find(
        (event) => event.type === 'execve' && (event.attrs['argv'] as string[]).includes('watched-marker'),
      );
    const write = (all: StoredEvent[]) =>
      all.find((event) => event.type === 'file_write' && event.attrs['path'] === out);
    const events = await awaitEvents(shared.daemon, 'run-sensed', auth, (all) =>
      [first, child, write].every((find) => find(all) !== undefined),
    );
    assertBound([first(events), child(events), write(events)], cgroup);
    assert.deepEqual(
      first(events)!.attrs['argv'],
      ['sh', '-c', script],
      'the stub exec of the command itself',
    );
  });

  it("puts a real agent's tool call (its shell and the file it writes) in the run", async function () {
    const missing = agentMissing('claude');
    if (missing !== undefined) {
      process.stderr.write(`      skipped: ${missing}\n`);
      this.skip();
    }
    const run = await runAgent('claude', {
      cwd: work.path,
      prompt: 'write a note',
      script: [
        { calls: [{ id: 'call_watched_1', kind: 'shell', command: 'echo watched > watched.txt' }] },
        { text: 'Done.' },
      ],
      launcher: [process.execPath, cliPath, 'watch', '--url', shared.daemon.url, '--run', 'run-claude', '--'],
      env: { PROVD_AUTH_TOKEN: token },
      timeoutMs: 150_000,
    });
    assert.equal(run.exitCode, 0, run.stderr.slice(-2000));
    assert.match(run.stderr, /provd: watching claude in run run-claude/);
    const cgroup = await boundCgroup(shared.daemon.url, 'run-claude');
    const path = join(work.path, 'watched.txt');
    const shell = (all: StoredEvent[]) =>
      all.find(
        (event) =>
          event.type === 'execve' &&
          (event.attrs['argv'] as string[]).some((arg) => arg.includes('echo watched > watched.txt')),
      );
    const write = (all: StoredEvent[]) =>
      all.find((event) => event.type === 'file_write' && event.attrs['path'] === path);
    const events = await awaitEvents(
      shared.daemon,
      'run-claude',
      auth,
      (all) => shell(all) !== undefined && write(all) !== undefined,
    );
    assertBound([shell(events), write(events)], cgroup);
  });
});
