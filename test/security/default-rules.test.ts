/**
 * Each rule of the built-in policy, on the real daemon, against events in the published formats of
 * every producer provd ingests: Falco alerts and Tetragon events from test/fixtures/real (see its
 * README for where each line comes from) and AgentProvenance's native sensor lines
 * (test/fixtures/native-ebpf-events.jsonl). A line is used as is where the corpus has one of that
 * kind; otherwise the closest real line with only the value that matters changed, as each case says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { pageItems } from '../support/http.js';
import { bind, ingest, pageAll } from '../support/telemetry.js';

/** The contract's table: what each default rule decides, and how severe its risk is. */
const contract = {
  metadata_ip: ['quarantine', 'high'],
  secret_path: ['kill', 'critical'],
  private_cidr: ['deny', 'medium'],
  privilege_escalation: ['quarantine', 'high'],
  ptrace: ['quarantine', 'high'],
} as const;
type RuleId = keyof typeof contract;

/**
 * What one line must yield: a risk of the rule whose evidence is the event, with that type (the
 * rule's name unless given), or no risk at all. `what` starts with the corpus line's number, and
 * says what was `made` of it where a value was changed.
 */
type Case = readonly [what: string, line: string, rule: RuleId | null, evidenceType?: string];

interface Risk {
  risk_id: string;
  rule_id: string;
  decision: string;
  severity: string;
  evidence: { event_id: string; type: string }[];
}

/** Line `n` (counted from 1) of a corpus file, byte for byte. */
function corpusLine(file: string, n: number): string {
  const line = readFileSync(join(packageRoot, 'test', 'fixtures', file), 'utf8').split('\n')[n - 1];
  assert.ok(line, `${file} has a line ${n}`);
  return line;
}
const falco = (n: number): string => corpusLine('real/falco.jsonl', n);
const tetragon = (n: number): string => corpusLine('real/tetragon.jsonl', n);
const native = (n: number): string => corpusLine('native-ebpf-events.jsonl', n);

/** `line` with every `from` made `to` (alert text and field alike); `from` must be there. */
function edit(line: string, from: string, to: string): string {
  assert.ok(line.includes(from), `the line holds ${from}`);
  return line.replaceAll(from, to);
}

/**
 * Falco names a process on the host by neither pid nor container, so no run could claim lines 29
 * and 36: they are put in the container of line 16 (and line 7, which names none, too), a change
 * made only so a run binds them.
 */
const hostContainer = 'ee97d9c4186f';
const inContainer = (line: string): string =>
  edit(line, '"container.id":"host"', `"container.id":"${hostContainer}"`);

/**
 * Tetragon line 60 (curl's connection, the older `process_connect` event) as the `tcp_connect`
 * kprobe Tetragon reports connections with today: same process, parent, node and time, the socket
 * as a KprobeSock (api/v1/tetragon/tetragon.proto), with `daddr` as its destination.
 */
function tcpConnect(daddr: string): string {
  const { process_connect: connect, ...rest } = JSON.parse(tetragon(60)) as {
    process_connect: Record<string, unknown>;
  };
  const sock = { family: 'AF_INET', type: 'SOCK_STREAM', protocol: 'IPPROTO_TCP' };
  const ends = {
    saddr: connect['source_ip'],
    sport: connect['source_port'],
    daddr,
    dport: connect['destination_port'],
  };
  const kprobe = { process: connect['process'], parent: connect['parent'], function_name: 'tcp_connect' };
  const args = [{ sock_arg: { ...sock, ...ends, state: 'TCP_SYN_SENT' } }];
  return JSON.stringify({ process_kprobe: { ...kprobe, args, action: 'KPROBE_ACTION_POST' }, ...rest });
}

/** Native line 1 (sh's exec) as AgentProvenance's sensor writes another kind of event. */
const sensorEvent = (fields: string): string =>
  edit(native(1), '"event_type":"execve","path":"/bin/sh"', fields);

const cases: Record<'falco' | 'tetragon' | 'native', readonly Case[]> = {
  falco: [
    [
      '17: K8s API contact, made to 169.254.169.254',
      edit(falco(17), '10.96.0.1', '169.254.169.254'),
      'metadata_ip',
    ],
    ['17: K8s API contact, to 10.96.0.1:443', falco(17), 'private_cidr'],
    ['18: K8s API contact, to 10.100.0.1:443', falco(18), 'private_cidr'],
    ['36: malicious IP 172.67.190.62 (outside 172.16/12)', inContainer(falco(36)), null],
    ['29: cat reads /etc/shadow', inContainer(falco(29)), 'secret_path'],
    [
      '7: touch opens /bin/hack',
      edit(falco(7), '"output_fields": {', `"output_fields": {"container.id":"${hostContainer}",`),
      null,
    ],
    ['2: non-sudo setuid, uid=root', falco(2), 'privilege_escalation', 'setuid'],
    [
      '2: non-sudo setuid, made uid 1000',
      edit(falco(2), '"evt.arg.uid":"root"', '"evt.arg.uid":"1000"'),
      null,
    ],
    // no ptrace alert is published; "PTRACE attached to process" (falcosecurity/rules) prints nearly
    // line 29's fields (no fd.name nor ancestors; proc.pcmdline and evt.arg.flags), evt.type ptrace
    ['29: cat, its openat made a ptrace', inContainer(edit(falco(29), 'openat', 'ptrace')), 'ptrace'],
    ['16: terminal shell in a container', falco(16), null],
  ],
  tetragon: [
    ['60 as tcp_connect to 169.254.169.254', tcpConnect('169.254.169.254'), 'metadata_ip'],
    [
      '60: process_connect, made to 169.254.169.254',
      edit(tetragon(60), '142.250.180.196', '169.254.169.254'),
      'metadata_ip',
    ],
    ['60 as tcp_connect to 10.88.0.1, the podman gateway', tcpConnect('10.88.0.1'), 'private_cidr'],
    [
      '60: process_connect, made to 10.88.0.1',
      edit(tetragon(60), '142.250.180.196', '10.88.0.1'),
      'private_cidr',
    ],
    ['60: process_connect to 142.250.180.196', tetragon(60), null],
    ['60 as tcp_connect to 142.250.180.196', tcpConnect('142.250.180.196'), null],
    [
      '39: cat read()s, made root/.ssh/id_rsa',
      edit(tetragon(39), 'usr/share/elasticsearch/config/elasticsearch.keystore', 'root/.ssh/id_rsa'),
      'secret_path',
    ],
    ['38: cat openat()s tracing_policy.yaml', tetragon(38), null],
    ['42: su setuid(0)', tetragon(42), 'privilege_escalation', 'setuid'],
    ['40: su setgid(0)', tetragon(40), 'privilege_escalation', 'setgid'],
    ['42: su setuid, made (1000)', edit(tetragon(42), '{"int_arg":0}', '{"int_arg":1000}'), null],
    [
      '42: su, its __x64_sys_setuid made __x64_sys_ptrace',
      edit(tetragon(42), '__x64_sys_setuid', '__x64_sys_ptrace'),
      'ptrace',
    ],
    ['41: nsenter setns()', tetragon(41), null],
  ],
  // AgentProvenance's sensor writes a setuid's new id as `uid`, a setgid's as `gid`, a ptrace's
  // `request` and `target_pid` (internal/sensor/sensor_linux.go): line 1 is made each of them
  native: [
    ['2: wget connects to 169.254.169.254', native(2), 'metadata_ip'],
    ['3: curl connects to 10.0.0.5', native(3), 'private_cidr'],
    [
      '2: made to 172.67.190.62 (outside 172.16/12)',
      edit(native(2), '169.254.169.254', '172.67.190.62'),
      null,
    ],
    ['4: sh opens ~/.aws/credentials', native(4), 'secret_path'],
    ['4: made ~/.aws/cli/alias', edit(native(4), '.aws/credentials', '.aws/cli/alias'), null],
    ['1: made a setuid to 0', sensorEvent('"event_type":"setuid","uid":0'), 'privilege_escalation', 'setuid'],
    ['1: made a setgid to 0', sensorEvent('"event_type":"setgid","gid":0'), 'privilege_escalation', 'setgid'],
    ['1: made a setuid to 1000', sensorEvent('"event_type":"setuid","uid":1000'), null],
    [
      '1: made a PTRACE_ATTACH of pid 1',
      sensorEvent('"event_type":"ptrace","request":16,"target_pid":1'),
      'ptrace',
    ],
    ['1: sh execs /bin/sh', native(1), null],
  ],
};

/** The system-side identity a run binds to claim a producer's event. */
function identity(format: keyof typeof cases, line: string): Record<string, unknown> {
  const value = JSON.parse(line) as Record<string, unknown>;
  if (format === 'native') return { cgroup_id: value['cgroup_id'] };
  if (format === 'falco')
    return { container_id: (value['output_fields'] as Record<string, unknown>)['container.id'] };
  const [body] = Object.values(value) as { process: { exec_id: string } }[];
  return { process_id: body!.process.exec_id };
}

/**
 * Binds one run to the events of every case, then ingests them one at a time: each must join the
 * run and add exactly its risk (rule, decision, severity, the event as sole evidence), or none.
 */
async function judgeEach(daemon: RunningDaemon, format: keyof typeof cases): Promise<void> {
  const run = `run-${format}`;
  const keys = new Map(cases[format].map(([, line]) => [JSON.stringify(identity(format, line)), line]));
  let call = 0;
  for (const line of keys.values()) {
    const scope = { run_id: run, tool_call_id: `tc-${call++}`, started_at: '2000-01-01T00:00:00Z' };
    await bind(daemon.url, { ...scope, ...identity(format, line) });
  }
  const events = new Set<string>();
  const risks = new Set<string>();
  for (const [what, line, rule, evidenceType] of cases[format]) {
    const stored = await ingest(daemon.url, `${line}\n`, format);
    assert.deepEqual(
      [stored.status, stored.body['accepted']],
      [200, 1],
      `${what}: ${JSON.stringify(stored.body)}`,
    );
    const added = (await pageAll(daemon.url, `run=${run}`)).filter(
      (event) => !events.has(event['id'] as string),
    );
    assert.equal(added.length, 1, `${what}: the run claims the event`);
    const id = added[0]!['id'] as string;
    events.add(id);
    const listed = await pageItems<Risk>(daemon.url, `/v1/security/risks?run=${run}`, 'risks', 100);
    const fresh = listed.filter((risk) => !risks.has(risk.risk_id));
    for (const risk of fresh) risks.add(risk.risk_id);
    assert.deepEqual(
      fresh.map((risk) => [
        risk.rule_id,
        risk.decision,
        risk.severity,
        risk.evidence.map((e) => [e.event_id, e.type]),
      ]),
      rule === null ? [] : [[rule, ...contract[rule], [[id, evidenceType ?? rule]]]],
      `${format} ${what}`,
    );
  }
}

describe('the default policy on real-format input from each producer', function () {
  const daemons = useDaemonFixture();

  it('Falco alerts: each rule fires on its alert, never on the innocent neighbour', async function () {
    await judgeEach(await daemons.start(), 'falco');
  });

  it('Tetragon events: each rule fires on its kprobe or socket event, never on the innocent neighbour', async function () {
    await judgeEach(await daemons.start(), 'tetragon');
  });

  it('native NDJSON (AgentProvenance sensor lines): each rule fires, never on the innocent neighbour', async function () {
    await judgeEach(await daemons.start(), 'native');
  });
});
