import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import { anthropic, anthropicStream, openAiChat, openAiChatStream } from '../support/llm-bodies.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';

type Json = Record<string, unknown>;
type Basis = { tables: string[]; event_ids: string[]; tool_call_ids: string[] };

const at = (second: number): string => `2026-01-01T00:00:${String(second).padStart(2, '0')}Z`;

/** A tls_read line whose http holds a response (or request) body, as the sensor keeps one. */
function tlsLine(second: number, body: string, http: Json = {}): string {
  return nativeLine({
    event_type: 'tls_read',
    timestamp: at(second),
    pid: 100,
    tgid: 100,
    ppid: 1,
    cgroup_id: '800',
    http: {
      kind: 'response',
      status: 200,
      headers: {},
      body,
      body_encoding: 'utf8',
      body_truncated: false,
      body_complete: true,
      ...http,
    },
  });
}

/** One event of the signals run: process `pid`, child of `ppid`, in cgroup 800. */
const runLine = (second: number, pid: number, ppid: number, fields: Json): string =>
  nativeLine({ timestamp: at(second), pid, tgid: pid, ppid, cgroup_id: '800', ...fields });

async function signalsOf(daemon: RunningDaemon, run: string): Promise<Json> {
  const answer = await request(daemon.url, `/v1/signals?run=${run}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Ingests NDJSON lines and asserts every one was accepted. */
async function ingestLines(daemon: RunningDaemon, lines: readonly string[]): Promise<void> {
  const answer = await ingest(daemon.url, lines.map((line) => `${line}\n`).join(''), 'native');
  assert.equal(answer.body['accepted'], lines.length, JSON.stringify(answer.body));
}

const cutStream = anthropicStream.slice(0, anthropicStream.indexOf('event: message_delta'));
const gzipped = gzipSync(
  JSON.stringify({
    type: 'message',
    model: 'claude-haiku-4-5',
    usage: { input_tokens: 10, output_tokens: 3 },
  }),
).toString('base64');

const signalsRunLines = [
  runLine(1, 100, 1, { event_type: 'execve', path: '/bin/sh' }),
  runLine(2, 101, 100, { event_type: 'execve', path: '/usr/bin/git' }),
  runLine(3, 102, 100, { event_type: 'execve', path: '/usr/bin/git' }),
  runLine(4, 100, 1, { event_type: 'file_open', path: '/work/a.ts' }),
  runLine(4, 100, 1, { event_type: 'file_write', path: '/work/b.ts' }),
  runLine(5, 100, 1, { event_type: 'file_open', path: '/work/a.ts' }),
  runLine(5, 100, 1, { event_type: 'file_open', path: '/home/a/.ssh/id_rsa' }),
  runLine(6, 100, 1, { event_type: 'network_connect', dst_ip: '10.0.0.5', dst_port: 5432 }),
  runLine(6, 100, 1, { event_type: 'network_connect', dst_ip: '203.0.113.7', dst_port: 443 }),
  runLine(6, 100, 1, { event_type: 'network_connect', dst_ip: '203.0.113.7', dst_port: 443 }),
  runLine(7, 100, 1, { event_type: 'network_connect', dst_ip: '169.254.169.254', dst_port: 80 }),
  runLine(7, 100, 1, { event_type: 'dns_query', query: 'api.openai.com' }),
  runLine(8, 100, 1, { event_type: 'ptrace', target_pid: 1 }),
  runLine(8, 101, 100, { event_type: 'process_exit', exit_code: 0 }),
  runLine(9, 102, 100, { event_type: 'process_exit', exit_code: 1 }),
  runLine(12, 103, 100, { event_type: 'execve', path: '/usr/bin/new-tool' }),
  runLine(13, 103, 100, { event_type: 'process_exit', exit_code: 1 }),
  tlsLine(14, openAiChat),
  tlsLine(14, openAiChatStream),
  tlsLine(15, anthropic),
  tlsLine(15, cutStream),
  tlsLine(16, gzipped, { headers: { 'Content-Encoding': 'gzip' }, body_encoding: 'base64' }),
  tlsLine(16, JSON.stringify({ model: 'local-llama', usage: { prompt_tokens: 7, completion_tokens: 1 } })),
  tlsLine(17, openAiChat, { kind: 'request', status: undefined, method: 'POST' }),
  tlsLine(17, '{"name":"typescript","versions":{}}'),
  runLine(20, 100, 1, { event_type: 'process_exit', signal: 'SIGKILL' }),
];

describe('GET /v1/signals (behaviour, cost, quality and security of a run)', function () {
  const daemons = useDaemonFixture();

  it("counts a run's behaviour, LLM usage, exits and risks, each with the events it rests on", async function () {
    const daemon = await daemons.start();
    // an earlier run executed /bin/sh and git: of the signals run's binaries, only new-tool is new
    await bind(daemon.url, { run_id: 'run-before', tool_call_id: 'tc', cgroup_id: '700', started_at: at(0) });
    await ingestLines(daemon, [
      nativeLine({ timestamp: at(1), cgroup_id: '700', path: '/bin/sh' }),
      nativeLine({ timestamp: at(2), cgroup_id: '700', path: '/usr/bin/git' }),
    ]);
    await bind(daemon.url, {
      run_id: 'run-signals',
      tool_call_id: 'tc',
      cgroup_id: '800',
      started_at: at(0),
    });
    await ingestLines(daemon, signalsRunLines);
    // loss during the run's span, and after it: only the first may have touched the run
    await ingestLines(daemon, [
      JSON.stringify({ event_type: 'capture_loss', timestamp: at(10), loss: 'syscall_drop', lost_events: 5 }),
      JSON.stringify({
        event_type: 'capture_loss',
        timestamp: '2026-01-02T00:00:00Z',
        loss: 'syscall_drop',
        lost_events: 9,
      }),
    ]);
    const events = await pageAll(daemon.url, 'run=run-signals');
    const idOf = (second: number, type: string, pick = 0): string =>
      events.filter((event) => event['time_received'] === at(second) && event['type'] === type)[pick]![
        'id'
      ] as string;

    const signals = await signalsOf(daemon, 'run-signals');
    assert.deepEqual(signals['span'], {
      first_event: at(1).replace('Z', '.000000000Z'),
      last_event: at(20).replace('Z', '.000000000Z'),
      seconds: 19,
    });

    const behaviour = signals['behaviour'] as Json;
    assert.equal(behaviour['events'], signalsRunLines.length);
    assert.equal(behaviour['per_minute'], Math.round((signalsRunLines.length / (19 / 60)) * 1000) / 1000);
    const byType = new Map((behaviour['by_type'] as Json[]).map((row) => [row['type'], row['events']]));
    assert.deepEqual(
      [byType.get('execve'), byType.get('tls_read'), byType.get('process_exit'), byType.get('secret_path')],
      [4, 8, 4, 1],
    );
    assert.deepEqual((behaviour['peak_10s'] as Json)['events'], 15);
    assert.equal((behaviour['peak_10s'] as Json)['start'], '2026-01-01T00:00:00.000000000Z');

    const binaries = behaviour['binaries'] as Json;
    assert.deepEqual([binaries['execs'], binaries['distinct']], [4, 3]);
    assert.deepEqual(
      (binaries['top'] as Json[]).map((top) => [
        top['path'],
        top['execs'],
        top['new'],
        top['first_event_id'],
      ]),
      [
        ['/usr/bin/git', 2, false, idOf(2, 'execve')],
        ['/bin/sh', 1, false, idOf(1, 'execve')],
        ['/usr/bin/new-tool', 1, true, idOf(12, 'execve')],
      ],
    );
    const fresh = binaries['new'] as Json;
    assert.deepEqual([fresh['earlier_runs'], fresh['compared'], fresh['count']], [1, 3, 1]);
    assert.deepEqual((fresh['basis'] as Basis).event_ids, [idOf(12, 'execve')]);

    const fanOut = behaviour['fan_out'] as Record<string, Json>;
    assert.deepEqual(
      [
        fanOut['processes']!['value'],
        fanOut['files']!['value'],
        fanOut['destinations']!['value'],
        fanOut['dns_names']!['value'],
      ],
      [4, 3, 3, 1],
    );
    assert.deepEqual([fanOut['max_children']!['value'], fanOut['max_children']!['parent_pid']], [3, 100]);

    const observed = (signals['cost'] as Record<string, Json>)['observed']!;
    const models = new Map((observed['models'] as Json[]).map((model) => [model['model'], model]));
    const tokens = (model: Json | undefined): unknown[] =>
      [
        'requests',
        'incomplete',
        'input_tokens',
        'output_tokens',
        'cached_input_tokens',
        'cache_write_tokens',
      ].map((key) => model?.[key]);
    assert.deepEqual(tokens(models.get('gpt-4.1-2025-04-14')), [1, 0, 19, 10, 0, 0]);
    assert.deepEqual(tokens(models.get('gpt-4o-mini')), [1, 0, 8, 2, 4, 0]);
    // Anthropic: the prompt is input + cache reads + cache writes
    assert.deepEqual(tokens(models.get('claude-sonnet-4-5-20250929')), [1, 0, 2112, 34, 2000, 100]);
    // the stream cut before message_delta: its counts are a floor, and it is counted incomplete
    assert.deepEqual(tokens(models.get('claude-haiku-4-5')), [2, 1, 25 + 10, 1 + 3, 0, 0]);
    assert.deepEqual(
      (models.get('gpt-4.1-2025-04-14')!['basis'] as Basis).event_ids,
      [idOf(14, 'tls_read')],
      'the request that carried the same body is not counted',
    );
    assert.deepEqual(
      [...models.values()].map((model) => [model['model'], model['family']]),
      [
        ['claude-haiku-4-5', 'claude-haiku-4-5'],
        ['claude-sonnet-4-5-20250929', 'claude-sonnet-4'],
        ['gpt-4.1-2025-04-14', 'gpt-4.1'],
        ['gpt-4o-mini', 'gpt-4o-mini'],
        ['local-llama', null],
      ],
    );
    for (const model of models.values()) {
      const prices = model['prices'] as Record<string, number> | null;
      const [, , input, output, cached, written] = tokens(model) as number[];
      const expected =
        prices === null
          ? null
          : Math.round(
              (input! - cached! - written!) * prices['input']! +
                cached! * prices['cached_input']! +
                written! * prices['cache_write']! +
                output! * prices['output']!,
            ) / 1e6;
      assert.equal(model['estimated_price_usd'], expected, String(model['model']));
    }
    const totals = observed['totals'] as Json;
    assert.deepEqual(
      [totals['requests'], totals['incomplete'], totals['input_tokens'], totals['unpriced_requests']],
      [6, 1, 19 + 8 + 2112 + 35 + 7, 1],
    );

    const exits = (signals['quality'] as Record<string, Json>)['process_exits']!;
    assert.deepEqual([exits['exits'], exits['without_code']], [4, 1]);
    assert.deepEqual((exits['non_zero'] as Json)['value'], 2);
    assert.deepEqual((exits['signaled'] as Json)['value'], 1);
    assert.deepEqual(
      (exits['by_code'] as Json[]).map((code) => [code['exit_code'], code['exits'], code['first_event_id']]),
      [
        [1, 2, idOf(9, 'process_exit')],
        [0, 1, idOf(8, 'process_exit')],
      ],
    );

    const security = signals['security'] as Record<string, Json>;
    const risks = security['risks']!;
    assert.equal(risks['total'], 4);
    assert.deepEqual(
      (risks['by_severity'] as Json[]).map((row) => [row['severity'], row['risks']]),
      [
        ['critical', 1],
        ['high', 2],
        ['medium', 1],
      ],
    );
    assert.deepEqual(
      (risks['by_decision'] as Json[]).map((row) => [row['decision'], row['risks'], row['first_event_id']]),
      [
        ['kill', 1, idOf(5, 'secret_path')],
        ['quarantine', 2, idOf(7, 'metadata_ip')],
        ['deny', 1, idOf(6, 'private_cidr')],
      ],
    );
    const coverage = security['coverage'] as Record<string, Json>;
    assert.deepEqual([coverage['run']!['gaps'], coverage['unattributed_in_span']!['gaps']], [0, 1]);
    assert.deepEqual(coverage['unattributed_in_span']!['lost_events'], 5);

    // the earlier run has nothing earlier to be compared with: all its binaries are new
    const before = (await signalsOf(daemon, 'run-before'))['behaviour'] as Record<string, Json>;
    assert.deepEqual(
      [(before['binaries']!['new'] as Json)['earlier_runs'], (before['binaries']!['new'] as Json)['count']],
      [0, 2],
    );
  });

  it('counts events that joined the run late, and events added after an answer, exactly once', async function () {
    const daemon = await daemons.start();
    // waits in the spool until a binding claims it
    await ingestLines(daemon, [nativeLine({ timestamp: at(1), cgroup_id: '900', path: '/usr/bin/make' })]);
    await bind(daemon.url, { run_id: 'run-late', tool_call_id: 'tc', cgroup_id: '900', started_at: at(0) });
    const first = (await signalsOf(daemon, 'run-late'))['behaviour'] as Record<string, Json>;
    assert.deepEqual(
      (first['binaries']!['top'] as Json[]).map((top) => [top['path'], top['execs']]),
      [['/usr/bin/make', 1]],
    );
    const firstId = (first['binaries']!['top'] as Json[])[0]!['first_event_id'];
    await ingestLines(daemon, [
      nativeLine({ timestamp: at(2), cgroup_id: '900', path: '/usr/bin/make' }),
      nativeLine({ timestamp: at(3), cgroup_id: '900', path: '/usr/bin/cc' }),
    ]);
    const again = (await signalsOf(daemon, 'run-late'))['behaviour'] as Record<string, Json>;
    assert.deepEqual(
      (again['binaries']!['top'] as Json[]).map((top) => [
        top['path'],
        top['execs'],
        top['first_event_id'] === firstId,
      ]),
      [
        ['/usr/bin/make', 2, true],
        ['/usr/bin/cc', 1, false],
      ],
    );
    assert.equal(again['events'], 3);
  });

  it('answers a run without events with zeros and empty lists', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, { run_id: 'run-empty', tool_call_id: 'tc', cgroup_id: '901', started_at: at(0) });
    const signals = await signalsOf(daemon, 'run-empty');
    assert.deepEqual(signals['span'], { first_event: null, last_event: null, seconds: 0 });
    const behaviour = signals['behaviour'] as Json;
    assert.deepEqual([behaviour['events'], behaviour['per_minute'], behaviour['by_type']], [0, null, []]);
    assert.deepEqual((behaviour['peak_10s'] as Json)['start'], null);
    assert.deepEqual((signals['security'] as Record<string, Json>)['risks']!['by_severity'], []);
  });
});
