import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { runDaemonCli } from '../../support/cli.js';
import { freePort, makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../../support/daemon.js';
import { eventually } from '../../support/eventually.js';
import { request } from '../../support/http.js';
import { deniedCall, ranCall, storeAgentSession } from '../../support/agent-session.js';
import { openAiResponses } from '../../support/llm-bodies.js';
import { bind, ingest, nativeLine, pageAll } from '../../support/telemetry.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

/** The ids docs/operations.md documents: the first bytes of SHA-256 over provd's own ids. */
const sha = (text: string, chars: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, chars);
const traceIdOf = (run: string): string => sha(`provd.otlp.trace\u0000${run}`, 32);
const spanIdOf = (run: string, subject: string, id: string): string =>
  sha(`provd.otlp.span\u0000${run}\u0000${subject}\u0000${id}`, 16);

/** A recorded tool call (`make`), its cgroup bound to it, and `count` events of it, one reading /etc/shadow. */
async function recordRun(url: string, run: string, cgroup: string, count: number, from = 0): Promise<void> {
  if (from === 0) {
    const recorded = await request(url, '/v1/record', {
      method: 'POST',
      body: JSON.stringify({
        run_id: run,
        tool_call_id: 'call-1',
        command: 'make',
        args: ['all'],
        execute: false,
      }),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
    await bind(url, {
      run_id: run,
      tool_call_id: 'call-1',
      cgroup_id: cgroup,
      started_at: '2026-01-01T00:00:00Z',
    });
  }
  const lines = Array.from({ length: count }, (_, n) => {
    const i = from + n;
    return nativeLine({
      event_type: i % 2 === 0 ? 'execve' : 'file_open',
      timestamp: `2026-01-01T00:00:${String(1 + (i % 50)).padStart(2, '0')}.${String(i).padStart(6, '0')}Z`,
      cgroup_id: cgroup,
      pid: 2000 + i,
      tgid: 2000 + i,
      path: i === 1 ? '/etc/shadow' : i % 2 === 0 ? '/bin/sh' : `/tmp/file-${i}`,
    });
  });
  const answer = await ingest(url, lines.join('\n') + '\n', 'native');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body['accepted'], count);
}

/** The event spans received for `run`, by event id, waiting until `count` distinct ones arrived. */
async function eventSpans(
  receiver: OtlpReceiver,
  run: string,
  count: number,
): Promise<Map<string, ReceivedSpan[]>> {
  const traceId = traceIdOf(run);
  return eventually(
    `${count} event spans of ${run}`,
    () => {
      const byEvent = new Map<string, ReceivedSpan[]>();
      for (const span of receiver.spans) {
        const id = span.attributes['provd.event.id'];
        if (span.traceId !== traceId || typeof id !== 'string') continue;
        byEvent.set(id, [...(byEvent.get(id) ?? []), span]);
      }
      return byEvent;
    },
    (byEvent) => byEvent.size >= count,
    { timeoutMs: 60_000, everyMs: 100 },
  );
}

async function otlpCheck(daemon: RunningDaemon): Promise<Record<string, unknown>> {
  const health = await request(daemon.url, '/v1/health');
  return (health.body['checks'] as Record<string, Record<string, unknown>>)['otlp']!;
}

describe('otlp export', function () {
  this.timeout(180_000);
  let receiver: OtlpReceiver | null = null;
  let daemon: RunningDaemon | null = null;
  let dataDir: string;

  beforeEach(() => {
    dataDir = makeDataDir();
  });
  afterEach(async () => {
    await daemon?.stop();
    await receiver?.close();
    daemon = null;
    receiver = null;
    removeDir(dataDir);
  });

  it('sends a sealed run as an invoke_agent span, its tool call and its events under it, as the store holds them', async function () {
    receiver = await startOtlpReceiver();
    // an API key as Langfuse and Phoenix take it, in the SDK's own variable (docs/operations.md)
    daemon = await startDaemon({
      dataDir,
      args: ['--otlp-endpoint', receiver.url],
      env: { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic cGs6c2s=,x-provd-test=1' },
    });
    // more events than a page holds, and a model's answer whose token usage provd reads
    await recordRun(daemon.url, 'run-a', '901', 1100);
    const response = {
      kind: 'response',
      status: 200,
      headers: {},
      body: openAiResponses,
      body_encoding: 'utf8',
    };
    const tls = nativeLine({
      event_type: 'tls_read',
      cgroup_id: '901',
      timestamp: '2026-01-01T00:00:59Z',
      http: response,
    });
    assert.equal((await ingest(daemon.url, tls + '\n', 'native')).body['accepted'], 1);
    const stored = await pageAll(daemon.url, 'run=run-a');
    assert.equal(stored.length, 1101);
    const byEvent = await eventSpans(receiver, 'run-a', stored.length);
    assert.equal(receiver.headers['authorization'], 'Basic cGs6c2s=');
    assert.equal(receiver.headers['content-type'], 'application/x-protobuf');
    const traceId = traceIdOf('run-a');
    const runSpanId = spanIdOf('run-a', 'run', 'run-a');
    const toolSpanId = spanIdOf('run-a', 'tool_call', 'call-1');
    const inTrace = receiver.spans.filter((span) => span.traceId === traceId);

    const runSpans = inTrace.filter((span) => span.name === 'invoke_agent');
    assert.ok(runSpans.length >= 1);
    // once a checkpoint, not with each of its pages (1,101 events: two pages at least)
    const checkpoints = runSpans.map((span) => span.attributes['provd.checkpoint.hash']);
    assert.equal(new Set(checkpoints).size, checkpoints.length, checkpoints.join(' '));
    for (const span of runSpans) {
      assert.equal(span.spanId, runSpanId);
      assert.equal(span.parentSpanId, '');
      assert.equal(span.attributes['gen_ai.operation.name'], 'invoke_agent');
      assert.equal(span.attributes['gen_ai.conversation.id'], 'run-a');
      assert.match(String(span.attributes['provd.checkpoint.hash']), /^sha256:[0-9a-f]{64}$/);
      assert.equal(span.resource['service.name'], 'provd');
    }
    // the usage of openAiResponses (36 in, 87 out), once the whole run was sent
    const last = runSpans.at(-1)!;
    assert.deepEqual(
      [last.attributes['gen_ai.usage.input_tokens'], last.attributes['gen_ai.usage.output_tokens']],
      [36, 87],
    );

    const toolSpans = inTrace.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    assert.equal(toolSpans.length, 1, 'the tool call is sent once');
    const [tool] = toolSpans;
    assert.deepEqual(
      [tool!.name, tool!.spanId, tool!.parentSpanId, tool!.attributes['gen_ai.tool.name']],
      ['execute_tool make', toolSpanId, runSpanId, 'make'],
    );
    assert.equal(tool!.attributes['gen_ai.tool.call.id'], 'call-1');
    assert.equal(tool!.attributes['provd.tool_call.status'], 'asserted');

    // every stored event once, under its tool call's span, with what the store says of it
    assert.equal(byEvent.size, stored.length);
    for (const event of stored) {
      const spans = byEvent.get(event['id'] as string);
      assert.equal(spans?.length, 1, `event ${String(event['id'])} sent once`);
      const span = spans[0]!;
      assert.equal(span.name, event['type']);
      assert.equal(span.spanId, spanIdOf('run-a', 'event', event['id'] as string));
      assert.equal(span.parentSpanId, toolSpanId);
      assert.equal(span.attributes['provd.event.hash'], event['hash']);
      const correlation = event['correlation'] as Record<string, unknown>;
      assert.equal(span.attributes['provd.evidence_level'], correlation['evidence_level']);
      assert.equal(span.attributes['process.pid'], event['pid']);
      const attrs = event['attrs'] as Record<string, unknown>;
      assert.equal(span.attributes['file.path'], attrs['path']);
      const timeNs = BigInt(Date.parse(event['time'] as string)) * 1_000_000n;
      assert.equal(span.startNs / 1_000_000n, timeNs / 1_000_000n);
    }
    // the policy's decision on the secret read rides on its span
    const shadow = stored.find(
      (event) => (event['attrs'] as Record<string, unknown>)['path'] === '/etc/shadow',
    );
    const shadowSpan = byEvent.get(shadow!['id'] as string)![0]!;
    assert.deepEqual(
      [
        shadowSpan.attributes['provd.decision'],
        shadowSpan.attributes['provd.rule_id'],
        shadowSpan.status.code,
      ],
      ['kill', 'secret_path', 2],
    );
    // a model's answer (an HTTP body) stays on the host: the store has it, the span names it by hash
    const tlsEvent = stored.find((event) => event['type'] === 'tls_read');
    const tlsSpan = byEvent.get(tlsEvent!['id'] as string)![0]!;
    assert.equal(tlsSpan.attributes['provd.event.body_omitted'], true);
    assert.doesNotMatch(String(tlsSpan.attributes['provd.event.attrs']), /resp_67ccd2bed1ec8190/);
    assert.match(String(tlsSpan.attributes['provd.event.attrs']), /"status":200/);
    assert.match(JSON.stringify(tlsEvent!['attrs']), /resp_67ccd2bed1ec8190/);
    const check = await eventually(
      'the sent spans in health',
      () => otlpCheck(daemon!),
      (c) => c['sent_spans'] === inTrace.length,
    );
    assert.deepEqual([check['status'], check['endpoint'], check['rejected_spans']], ['ok', receiver.url, 0]);
  });

  it("names a hook session's agent on its invoke_agent span, and its tool calls by the agent's ids", async function () {
    receiver = await startOtlpReceiver();
    daemon = await startDaemon({ dataDir, args: ['--otlp-endpoint', receiver.url] });
    await storeAgentSession(daemon.url, {}, 'session-otlp');
    const traceId = traceIdOf('session-otlp');
    const runSpan = await eventually(
      'the session span',
      () => receiver!.spans.filter((span) => span.traceId === traceId && span.parentSpanId === '').at(-1),
      (span) => span !== undefined,
      { timeoutMs: 60_000, everyMs: 100 },
    );
    assert.equal(runSpan!.name, 'invoke_agent claude');
    assert.equal(runSpan!.attributes['gen_ai.agent.name'], 'claude');
    assert.equal(runSpan!.attributes['gen_ai.conversation.id'], 'session-otlp');
    const toolIds = await eventually(
      'the tool call spans',
      () =>
        receiver!.spans
          .filter(
            (span) => span.traceId === traceId && span.attributes['gen_ai.operation.name'] === 'execute_tool',
          )
          .map((span) => span.attributes['gen_ai.tool.call.id']),
      (ids) => ids.includes(ranCall) && ids.includes(deniedCall),
      { timeoutMs: 60_000, everyMs: 100 },
    );
    assert.equal(new Set(toolIds).size, toolIds.length, 'each tool call sent once');
  });

  it('loses nothing and sends no event twice when the endpoint is down, then up, and across a restart', async function () {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1/traces`;
    daemon = await startDaemon({ dataDir, args: ['--otlp-endpoint', url] });
    await recordRun(daemon.url, 'run-b', '902', 20);
    await eventually(
      'a failed export in health',
      () => otlpCheck(daemon!),
      (c) => Number(c['failed_exports']) >= 1,
      {
        timeoutMs: 90_000,
        everyMs: 200,
      },
    );
    assert.equal((await otlpCheck(daemon)).status, 'failed');
    // ingest does not wait on the export: stored while the endpoint is down
    await recordRun(daemon.url, 'run-b', '902', 5, 20);
    receiver = await startOtlpReceiver(port);
    await eventSpans(receiver, 'run-b', 25);
    await eventually(
      'health ok again',
      () => otlpCheck(daemon!),
      (c) => c['status'] === 'ok',
    );

    // a restart sends only what grew since: the cursor is in the store
    await daemon.stop();
    daemon = await startDaemon({ dataDir, args: ['--otlp-endpoint', url] });
    await recordRun(daemon.url, 'run-b', '902', 10, 25);
    const byEvent = await eventSpans(receiver, 'run-b', 35);
    const stored = await pageAll(daemon.url, 'run=run-b');
    assert.deepEqual([...byEvent.keys()].sort(), stored.map((event) => event['id'] as string).sort());
    for (const [id, spans] of byEvent) assert.equal(spans.length, 1, `event ${id} sent once`);
    // its tool call's status did not change: its span was not sent again with the second checkpoint
    const toolSpans = receiver.spans.filter((span) => span.attributes['gen_ai.tool.call.id'] === 'call-1');
    assert.equal(toolSpans.length, 1);
    const metrics = await fetch(`${daemon.url}/metrics`).then((answer) => answer.text());
    assert.match(metrics, /provd_source_events_total\{source="otlp",counter="failed_exports"\} [1-9]/);
    const sent = /provd_source_events_total\{source="otlp",counter="sent_spans"\} (\d+)/.exec(metrics);
    assert.equal(
      Number(sent?.[1]),
      receiver.spans.filter((span) => span.traceId === traceIdOf('run-b')).length,
    );
  });

  it('counts a page the endpoint refuses for good and goes on', async function () {
    receiver = await startOtlpReceiver();
    receiver.status = 400;
    daemon = await startDaemon({ dataDir, args: ['--otlp-endpoint', receiver.url] });
    await recordRun(daemon.url, 'run-c', '903', 5);
    const check = await eventually(
      'the refused spans in health',
      () => otlpCheck(daemon!),
      (c) => Number(c['rejected_spans']) >= 7,
    );
    assert.match(String(check['last_error']), /HTTP 400/);
    const metrics = await fetch(`${daemon.url}/metrics`).then((answer) => answer.text());
    assert.match(metrics, /provd_source_events_total\{source="otlp",counter="rejected_spans"\} [1-9]/);
  });

  for (const [given, says] of [
    ['localhost:4318/v1/traces', /--otlp-endpoint must be an http:\/\/ or https:\/\/ URL/],
    ['ftp://127.0.0.1/v1/traces', /not ftp/],
    ['not a url', /--otlp-endpoint must be an http:\/\/ or https:\/\/ URL/],
    ['https://user:secret@collector.example/v1/traces', /must not hold a user or password/],
  ] as const)
    it(`refuses --otlp-endpoint ${given} at start, saying why`, async function () {
      const run = await runDaemonCli(dataDir, ['--otlp-endpoint', given]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /PROVD_ERR_CONFIG_INVALID/);
      assert.match(run.stderr, says);
      assert.doesNotMatch(run.stderr, /secret/);
    });
});
