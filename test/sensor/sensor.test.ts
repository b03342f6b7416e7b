// Every sensor here has the default --capture agents and stores only the commands it records: what
// other test files run meanwhile is filtered out in the kernel, so the runner runs it beside them.
// run-suites: capture agents only (the ring-drop test, which must fill the ring, is ring-drop.test)
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { captureLeavesOut } from '../../src/sensor/capture-filter.js';
import { probeRecordCgroupRoot } from '../../src/provenance/record/cgroup-root.js';
import { runCli } from '../support/cli.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import {
  awaitEvents as awaitRunEvents,
  netnsUnavailable,
  recordSensed,
  skipWithoutSensor,
  trigger,
  type StoredEvent,
} from '../support/sensor-events.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'sensor-test-token';
const auth = { authorization: `Bearer ${token}` };

/** The run's events, once `wanted` holds. */
const awaitEvents = (
  daemon: RunningDaemon,
  run: string,
  wanted: (events: StoredEvent[]) => boolean,
): Promise<StoredEvent[]> => awaitRunEvents(daemon, run, auth, wanted);

describe('the eBPF sensor in the daemon', function () {
  const fixture = useDaemonFixture();
  const work = useTempDir('provd-sensor-');
  before(skipWithoutSensor);

  it('reports its probes attached in health', async function () {
    const daemon = await fixture.start({ sensor: true });
    const { status, body } = await request(daemon.url, '/v1/health');
    assert.equal(status, 200);
    const capture = body['native_capture'] as {
      status: string;
      probes: Record<string, { attached: boolean; error: string | null }>;
    };
    assert.equal(capture.status, 'running', JSON.stringify(capture));
    assert.deepEqual(capture.probes['exec'], { ...capture.probes['exec'], attached: true, error: null });
    assert.deepEqual(capture.probes['exit'], { ...capture.probes['exit'], attached: true, error: null });
  });

  it('captures the execs and exits of a recorded command as kernel-correlated events of its tool call', async function () {
    const cgroups = probeRecordCgroupRoot();
    if (cgroups.status !== 'ok') {
      process.stderr.write(`      skipped: ${cgroups.message}\n`);
      this.skip();
    }
    const daemon = await fixture.start({ sensor: true, authToken: token });
    // a script run by a relative name: its path is the script's, not its interpreter's
    const tools = join(work.path, 'tools'); // work.path is removed after each test
    mkdirSync(tools);
    writeFileSync(join(tools, 'tool.sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const recorded = await request(daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        run_id: 'run-sensed',
        tool_call_id: 'tc-sensed',
        command: 'sh',
        args: [
          '-c',
          `/bin/echo sensed-marker "two words" > /dev/null; cd /usr/bin && ./true; cd ${tools} && ./tool.sh; exit 7`,
        ],
        cwd: work.path, // its file effects are looked for there
      }),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    const sensed = (events: StoredEvent[]): StoredEvent[] =>
      events.filter((event) => event.source === 'provd_sensor');
    // batches commit in any order: wait for each event looked at, not only for the last one
    const events = await awaitEvents(
      daemon,
      'run-sensed',
      (all) =>
        sensed(all).some((event) => event.type === 'process_exit' && event.attrs['exit_code'] === 7) &&
        sensed(all).some((event) => event.type === 'execve' && event.attrs['path'] === '/bin/echo'),
    );
    const echo = sensed(events).find(
      (event) => event.type === 'execve' && event.attrs['path'] === '/bin/echo',
    );
    assert.ok(echo, `no exec of /bin/echo among ${JSON.stringify(sensed(events)).slice(0, 2000)}`);
    assert.deepEqual(echo.attrs['argv'], ['/bin/echo', 'sensed-marker', 'two words']);
    assert.equal(echo.correlation.evidence_level, 'kernel_correlated');
    assert.equal(echo['tool_call_id'], 'tc-sensed');
    const shellExit = sensed(events).find(
      (event) => event.type === 'process_exit' && event.attrs['exit_code'] === 7,
    );
    assert.ok(shellExit, 'the shell exit with status 7 was captured');
    assert.equal(shellExit['comm'], 'sh');
    // run by a relative name: the path of the file it runs, and the name as given
    const relative = (name: string): StoredEvent | undefined =>
      sensed(events).find((event) => event.type === 'execve' && event.attrs['given_path'] === name);
    assert.deepEqual(
      [relative('./true')?.attrs['path'], relative('./true')?.attrs['relative']],
      ['/usr/bin/true', true],
    );
    assert.equal(relative('./tool.sh')?.attrs['path'], join(tools, 'tool.sh'));
  });

  /** Runs `command ARGS` as a recorded command; its run's sensor events once `done` holds. */
  async function recordCommand(
    run: string,
    command: string,
    args: string[],
    done: (events: StoredEvent[]) => boolean,
    daemon?: RunningDaemon,
  ): Promise<StoredEvent[]> {
    daemon ??= await fixture.start({ sensor: true, authToken: token });
    return recordSensed(daemon, auth, work.path, run, command, args, done);
  }

  /** Runs trigger.py CATEGORY ARGS as a recorded command; its run's sensor events once `done` holds. */
  async function recordTrigger(
    run: string,
    args: string[],
    done: (events: StoredEvent[]) => boolean,
    daemon?: RunningDaemon,
  ): Promise<StoredEvent[]> {
    return recordCommand(run, 'python3', [trigger, ...args], done, daemon);
  }

  it('captures opens, a write, a rename, an unlink and a failed open, with absolute paths and results', async function () {
    const path = join(work.path, 'trigger-file.txt');
    const ofWork = (all: StoredEvent[]): StoredEvent[] =>
      all.filter((event) => String(event.attrs['path']).startsWith(work.path));
    // the trigger writes and reads a credentials file: the built-in policy would kill it for that
    // (test/sensor/sensor-policy.test.ts), so here secret_path only flags it
    const policy = join(work.path, 'detect-secrets.json');
    writeFileSync(
      policy,
      JSON.stringify({
        rules: [{ id: 'secret_path', decision: 'kill', mode: 'detect', match: { secret_paths: true } }],
      }),
    );
    const daemon = await fixture.start({ sensor: true, authToken: token, args: ['--policy', policy] });
    const events = await recordTrigger(
      'run-files',
      ['files', work.path],
      (all) => ofWork(all).length >= 9,
      daemon,
    );
    const touched = ofWork(events).map((event) => [
      event.type,
      event.attrs['path'],
      event.attrs['new_path'] ?? null,
      event.attrs['result'],
    ]);
    assert.deepEqual(touched, [
      ['file_write', path, null, 3],
      ['file_open', path, null, 3],
      ['file_rename', path, `${path}.moved`, 0],
      ['file_unlink', `${path}.moved`, null, 0],
      ['file_open', join(work.path, 'missing-file.txt'), null, -2],
      // by relative paths from work.path/.aws: made absolute, so the read of credentials is a secret read
      ['file_write', join(work.path, '.aws/credentials'), null, 3],
      ['secret_path', join(work.path, '.aws/credentials'), null, 3],
      ['file_rename', join(work.path, '.aws/credentials'), join(work.path, 'relative-moved.txt'), 0],
      ['file_unlink', join(work.path, 'relative-moved.txt'), null, 0],
    ]);
  });

  it('captures IPv4 and IPv6 connects with their destination and result', async function () {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const events = await recordTrigger(
        'run-connect',
        ['connect', String(port)],
        (all) =>
          all.filter((event) => event.type === 'network_connect' && event.attrs['dst_port'] === port)
            .length >= 2,
      );
      const connects = events
        .filter((event) => event.type === 'network_connect')
        .map((event) => [event.attrs['dst_ip'], event.attrs['dst_port'], event.attrs['result']]);
      assert.deepEqual(connects, [
        ['127.0.0.1', port, 0],
        ['::1', port, -111], // nothing listens there
      ]);
    } finally {
      server.close();
    }
  });

  it('classifies IPv4 connects to a metadata address as metadata_ip and to RFC 1918 as private_cidr', async function () {
    // every address is one the trigger gives to lo in a network namespace of its own: nothing leaves the host
    const why = netnsUnavailable();
    if (why !== undefined) {
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    }
    const daemon = await fixture.start({ sensor: true, authToken: token });
    const port = 8077; // any: the namespace is new, nothing else listens in it
    const isClassified = (event: StoredEvent): boolean =>
      event.type === 'metadata_ip' || event.type === 'private_cidr';
    const events = await recordCommand(
      'run-classified',
      'unshare',
      ['--net', 'python3', trigger, 'classified', String(port)],
      (all) => all.filter(isClassified).length >= 3,
      daemon,
    );
    const connects = events
      .filter(isClassified)
      .sort((a, b) => String(a['time']).localeCompare(String(b['time'])))
      .map((event) => [
        event.type,
        event.attrs['observed_type'],
        event.attrs['dst_ip'],
        event.attrs['dst_port'],
        event.attrs['result'],
        event.correlation.evidence_level,
      ]);
    assert.deepEqual(connects, [
      ['metadata_ip', 'network_connect', '169.254.169.254', port, 0, 'kernel_correlated'],
      ['private_cidr', 'network_connect', '10.77.0.1', port, 0, 'kernel_correlated'],
      ['private_cidr', 'network_connect', '192.168.77.1', port, 0, 'kernel_correlated'],
    ]);
    // the type filter of the events API finds them under their class
    for (const [type, ips] of [
      ['metadata_ip', ['169.254.169.254']],
      ['private_cidr', ['10.77.0.1', '192.168.77.1']],
    ] as const) {
      const page = `/v1/telemetry/events?run=run-classified&type=${type}`;
      const { status, body } = await request(daemon.url, page, { headers: auth });
      assert.equal(status, 200, JSON.stringify(body));
      const found = (body['events'] as StoredEvent[]).map((event) => event.attrs['dst_ip']).sort();
      assert.deepEqual(found, [...ips], `${page}: ${JSON.stringify(body)}`);
    }
  });

  it('captures setuid and setgid attempts with the id asked for', async function () {
    const events = await recordTrigger(
      'run-setuid',
      ['setuid'],
      (all) => all.some((event) => event.type === 'setuid') && all.some((event) => event.type === 'setgid'),
    );
    const attempts = events
      .filter((event) => event.type === 'setuid' || event.type === 'setgid')
      .map((event) => [
        event.type,
        event.attrs['target_uid'] ?? event.attrs['target_gid'],
        event.attrs['result'],
      ]);
    assert.deepEqual(attempts, [
      ['setgid', 65534, 0],
      ['setuid', 65534, 0],
    ]);
  });

  it('captures a ptrace attach with its request and target', async function () {
    const events = await recordTrigger(
      'run-ptrace',
      ['ptrace'],
      (all) =>
        all.some((event) => event.type === 'ptrace') &&
        all.some((event) => event.type === 'execve' && event.comm === 'sleep'),
    );
    const ptrace = events.find((event) => event.type === 'ptrace')!;
    const target = events.find((event) => event.type === 'execve' && event.comm === 'sleep');
    assert.ok(target, 'the traced child was captured too');
    assert.deepEqual(
      [ptrace.attrs['request'], ptrace.attrs['target_pid'], ptrace.attrs['result']],
      ['PTRACE_ATTACH', target['tgid'], 0],
    );
  });

  it('captures DNS queries sent by sendto, send, sendmsg and sendmmsg, with their name and type', async function () {
    const events = await recordTrigger(
      'run-dns',
      ['dns'],
      (all) => all.filter((event) => event.type === 'dns_query').length >= 6,
    );
    const queries = events
      .filter((event) => event.type === 'dns_query')
      .map((event) => [
        event.attrs['query'],
        event.attrs['query_type'],
        event.attrs['dst_ip'],
        event.attrs['dst_port'],
      ]);
    assert.deepEqual(queries, [
      ['sendto.provd.test', 'A', '127.0.0.1', 53],
      ['send.provd.test', 'AAAA', '127.0.0.1', 53],
      ['sendmsg.provd.test', 'TXT', '127.0.0.1', 53],
      ['pair.provd.test', 'A', '127.0.0.1', 53],
      ['pair.provd.test', 'AAAA', '127.0.0.1', 53],
      ['six.provd.test', 'A', '::1', 53],
    ]);
  });

  it('prints the capability report with provd sensor status, a line per probe, exit code 0', async function () {
    const daemon = await fixture.start({ sensor: true });
    const table = await runCli(['sensor', 'status', '--url', daemon.url]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^sensor: running( \(mounted tracefs at \/sys\/kernel\/tracing\))?$/);
    assert.match(lines[1]!, /^PROBE +ATTACHED +REQUIRED +RING FULL +IN FLIGHT +TRUNCATED +MISSED +ERROR$/);
    const records = lines.findIndex((line) => line.startsWith('records read: '));
    const probes = lines.slice(2, records).map((line) => line.split(/ +/).slice(0, 3));
    assert.deepEqual(probes, [
      ['exec', 'yes', 'yes'],
      ['exit', 'yes', 'yes'],
      ['file_open', 'yes', 'yes'],
      ['file_rename', 'yes', 'yes'],
      ['file_unlink', 'yes', 'yes'],
      ['connect', 'yes', 'yes'],
      ['dns', 'yes', 'yes'],
      ['setuid', 'yes', 'yes'],
      ['setgid', 'yes', 'yes'],
      ['ptrace', 'yes', 'yes'],
      ['tls_write', 'yes', 'no'],
      ['tls_read', 'yes', 'no'],
      ['connect_mark', 'yes', 'no'],
    ]);
    assert.match(
      lines[records]!,
      /^records read: \d+; dropped on the way to the store: handoff 0, backpressure 0/,
    );
    assert.match(lines[records + 1]!, /^capture: agents; leaves out events of processes no binding names/);
    const json = await runCli(['sensor', 'status', '--url', daemon.url, '--json']);
    assert.equal(json.code, 0);
    assert.equal((JSON.parse(json.stdout) as { status: string }).status, 'running');
  });

  it('says with exit code 1 that the sensor is off, and with 2 that the daemon cannot be reached', async function () {
    const daemon = await fixture.start();
    const off = await runCli(['sensor', 'status', '--url', daemon.url]);
    assert.deepEqual([off.code, off.stdout], [1, 'sensor: off (turned off with --no-sensor)\n']);
    await daemon.stop();
    const down = await runCli(['sensor', 'status', '--url', daemon.url]);
    assert.equal(down.code, 2);
    assert.match(down.stderr, /^provd: /);
  });

  it('starts without the sensor when asked to, and says so', async function () {
    const daemon = await fixture.start();
    const { body } = await request(daemon.url, '/v1/health');
    assert.deepEqual(body['native_capture'], {
      status: 'off',
      message: 'turned off with --no-sensor',
      probes: {},
      capture: { mode: 'agents', bound: 0, refused: 0, leaves_out: captureLeavesOut('agents') },
      records: 0,
      dropped: { handoff: 0, backpressure: 0, commit_failed: 0, malformed: 0 },
      tls: { targets: [], reassembly: null },
    });
  });

  it('names the capture mode it was given even with the sensor off', async function () {
    const daemon = await fixture.start({ args: ['--capture', 'host'] });
    const { body } = await request(daemon.url, '/v1/health');
    const capture = (body['native_capture'] as { capture: Record<string, unknown> }).capture;
    assert.deepEqual([capture['mode'], capture['leaves_out']], ['host', null]);
  });
});
