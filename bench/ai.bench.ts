/**
 * AI surface benchmark (`npm run bench:ai`; `npm run bench:guard` runs it with --short --guard):
 * `tools/call` round trips through the MCP server (`provd ai mcp`, spawned over stdio by the
 * SDK's own Client, which lists the tools first as a host does and so checks every
 * structuredContent against its output schema) to a real daemon seeded over HTTP with one run of
 * 5,000 events, 50 of them secret reads (risks). Prints one JSON line per tool and mode:
 *
 * - `ai.mcp.<tool>.sequential`: one call in flight, the latency a model sees; calls per second
 *   and p50/p99 of one round trip;
 * - `ai.mcp.<tool>.concurrent`: 8 calls in flight on the one session, the rate it sustains;
 *
 * for `list_events` (`{run, limit: 100}`), `list_risks` (`{run}`) and the gate `evaluate_action`
 * (curl to the metadata address). The baseline is the same request sent straight to the daemon
 * with fetch (GET /v1/telemetry/events, GET /v1/security/risks, POST /v1/security/evaluate), timed
 * in rounds alternating with the MCP calls' in the same mode; `ratio_to_baseline` is the median of
 * the rounds' MCP rate over the baseline's.
 * `ai.mcp_http.<tool>.<mode>`: the same calls through the daemon's own POST /mcp (Streamable HTTP,
 *   the SDK's client), against the same baseline (with --short, the gate's only).
 *
 * `peak_rss_bytes` is the MCP server child's over the measured series (the daemon's, over HTTP).
 *
 * `--guard` fails on any isError result, error or non-200 answer, or when an MCP rate's ratio to its
 * baseline falls more than 25% below the one recorded in bench/baselines.json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliPath, makeDataDir, removeDir, startDaemon, type RunningDaemon } from '../test/support/daemon.js';
import { nativeLine } from '../test/support/telemetry.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';
import { readPeakRssBytes, resetPeakRss } from './support/peak-rss.js';
import { withBodyType } from '../test/support/http.js';
import { median } from './support/median.js';

const args = new Set(process.argv.slice(2));
const isShort = args.has('--short');
const isGuard = args.has('--guard');
const warmupMs = isShort ? 200 : 1_000;
/** Each side's timed series is cut into rounds, baseline and MCP in turn (see measurePair). */
const rounds = isShort ? 4 : 5;
const roundMs = isShort ? 400 : 1_000;
const concurrency = 8;
const seededEvents = 5_000;
const riskEvery = 100;
const deadlineMs = isShort ? 90_000 : 300_000;
const host = describeHost();
const dataDir = makeDataDir();
const run = 'ai-bench-run';
const gateAction = { event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/'] };

/** One measured tool: its MCP arguments and the HTTP request it stands for (a POST when it has a body). */
interface Case {
  tool: string;
  arguments: Record<string, unknown>;
  baseline: string;
  path: string;
  body?: string;
}

const cases: Case[] = [
  {
    tool: 'list_events',
    arguments: { run, limit: 100 },
    baseline: 'http.telemetry_events',
    path: `/v1/telemetry/events?run=${run}&limit=100`,
  },
  {
    tool: 'list_risks',
    arguments: { run },
    baseline: 'http.security_risks',
    path: `/v1/security/risks?run=${run}`,
  },
  {
    tool: 'evaluate_action',
    arguments: gateAction,
    baseline: 'http.security_evaluate',
    path: '/v1/security/evaluate',
    body: JSON.stringify(gateAction),
  },
];

/** One call: resolves with why it failed, or undefined when it succeeded. */
type Attempt = () => Promise<string | undefined>;

/** What one timed series observed. */
interface Series {
  calls: number;
  errors: number;
  firstError: string | undefined;
  duration_s: number;
  calls_per_sec: number;
  p50_ms: number;
  p99_ms: number;
}

/** Runs `attempt` with `inFlight` calls in flight for `ms` milliseconds, timing each call. */
async function drive(attempt: Attempt, inFlight: number, ms: number): Promise<Series> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const endAt = started + ms;
  const worker = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const at = performance.now();
      const failure = await attempt().catch((error: unknown) =>
        error instanceof Error ? error.message : String(error),
      );
      latencies.push(performance.now() - at);
      if (failure !== undefined) {
        errors++;
        firstError ??= failure;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  return {
    calls: latencies.length,
    errors,
    firstError,
    duration_s: Number(elapsedS.toFixed(3)),
    calls_per_sec: Math.round(latencies.length / elapsedS),
    p50_ms: percentileMs(latencies, 50),
    p99_ms: percentileMs(latencies, 99),
  };
}

/** Sums the rounds of one side into one series (its p50/p99 are the rounds' medians). */
function combine(parts: Series[]): Series {
  const calls = parts.reduce((sum, part) => sum + part.calls, 0);
  const durationS = parts.reduce((sum, part) => sum + part.duration_s, 0);
  return {
    calls,
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
    firstError: parts.find((part) => part.firstError !== undefined)?.firstError,
    duration_s: Number(durationS.toFixed(3)),
    calls_per_sec: Math.round(calls / durationS),
    p50_ms: median(parts.map((part) => part.p50_ms)),
    p99_ms: median(parts.map((part) => part.p99_ms)),
  };
}

/**
 * Warms both sides up, then times them in alternating rounds (baseline, MCP, baseline, ...): a burst
 * of other work on the host lands on both sides of a round, not on one side's whole series. The
 * ratio is the median of the rounds' ratios.
 */
async function measurePair(
  base: Attempt,
  load: Attempt,
  inFlight: number,
  beforeTimed: () => void,
): Promise<{ base: Series; load: Series; ratio: number }> {
  await drive(base, inFlight, warmupMs);
  await drive(load, inFlight, warmupMs);
  beforeTimed();
  const bases: Series[] = [];
  const loads: Series[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    bases.push(await drive(base, inFlight, roundMs));
    loads.push(await drive(load, inFlight, roundMs));
    ratios.push(loads.at(-1)!.calls_per_sec / Math.max(1, bases.at(-1)!.calls_per_sec));
  }
  return { base: combine(bases), load: combine(loads), ratio: Number(median(ratios).toFixed(3)) };
}

/** The run: bound to cgroup 777, `seededEvents` events over a few minutes, one in `riskEvery` a secret read. */
async function seed(daemon: RunningDaemon): Promise<void> {
  const post = async (path: string, body: string): Promise<Record<string, unknown>> => {
    const answer = await fetch(daemon.url + path, { method: 'POST', headers: withBodyType(path), body });
    const json = (await answer.json()) as Record<string, unknown>;
    if (answer.status !== 200) throw new Error(`seeding: ${path} answered HTTP ${answer.status}`);
    return json;
  };
  await post('/v1/telemetry/bind', JSON.stringify({ run_id: run, tool_call_id: 'tc-1', cgroup_id: '777' }));
  const start = Date.UTC(2026, 0, 1);
  const lines = Array.from({ length: seededEvents }, (_v, i) => {
    const pid = 5000 + (i % 40);
    const at = { timestamp: new Date(start + 1000 + i * 37).toISOString(), pid, tgid: pid };
    if (i % riskEvery === riskEvery - 1)
      return nativeLine({ ...at, event_type: 'file_open', path: '/home/agent/.ssh/id_rsa' });
    if (i % 5 === 0) return nativeLine({ ...at, argv: ['make', `step-${i}`] });
    return nativeLine({ ...at, event_type: 'file_open', path: `/work/src/${i}.ts` });
  });
  const answer = await post('/v1/telemetry/ingest?format=native', lines.join('\n'));
  if (answer['accepted'] !== seededEvents) throw new Error(`seeding: ${JSON.stringify(answer)}`);
}

/** Spawns `provd ai mcp --url URL` with the SDK's stdio transport, connects and lists the tools. */
async function connectMcp(url: string): Promise<{ client: Client; pid: number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'ai', 'mcp', '--url', url],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)));
  const client = new Client({ name: 'provd-bench', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools(); // as a host does: the SDK then checks every output
  for (const { tool } of cases)
    if (!tools.some(({ name }) => name === tool)) throw new Error(`ai mcp lists no tool ${tool}`);
  return { client, pid: transport.pid!, stderr: () => stderr };
}

/** The SDK's Streamable HTTP client on the daemon's POST /mcp, connected, the tools listed. */
async function connectMcpHttp(url: string): Promise<Client> {
  const client = new Client({ name: 'provd-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)));
  await client.listTools(); // the SDK then checks every output, as over stdio
  return client;
}

/** One tools/call; a failure when it is an isError result or holds no structuredContent. */
const mcpAttempt =
  (client: Client, { tool, arguments: input }: Case): Attempt =>
  async () => {
    const result = (await client.callTool({ name: tool, arguments: input })) as CallToolResult;
    const [block] = result.content;
    if (result.isError === true) return `${tool}: isError ${block?.type === 'text' ? block.text : ''}`;
    return result.structuredContent === undefined ? `${tool}: no structuredContent` : undefined;
  };

/** The same request sent straight to the daemon; its body read and parsed as the MCP server does. */
const httpAttempt =
  (url: string, { path, body }: Case): Attempt =>
  async () => {
    const init: RequestInit =
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const answer = await fetch(url + path, init);
    JSON.parse(await answer.text());
    return answer.status === 200 ? undefined : `${path}: HTTP ${answer.status}`;
  };

/** Seeds the daemon, then measures each case and mode, baseline first; returns the guard's failures. */
async function runBench(): Promise<string[]> {
  const failures: string[] = [];
  const daemon = await startDaemon({ dataDir });
  try {
    await seed(daemon);
    const mcp = await connectMcp(daemon.url);
    try {
      const gate = await mcp.client.callTool({ name: 'evaluate_action', arguments: gateAction });
      const decision = (gate.structuredContent as { decision?: string } | undefined)?.decision;
      if (decision !== 'quarantine')
        failures.push(`ai.mcp.evaluate_action: decided ${decision}, not quarantine`);
      // the same calls to the daemon's own POST /mcp (Streamable HTTP): peak RSS is the daemon's
      const overHttp = await connectMcpHttp(daemon.url);
      // --short (the guard): through /mcp the gate only, whose ratio shows a call's own cost most
      const faces = [
        { prefix: 'ai.mcp', client: mcp.client, pid: mcp.pid, cases },
        {
          prefix: 'ai.mcp_http',
          client: overHttp,
          pid: daemon.child.pid!,
          cases: isShort ? cases.filter(({ tool }) => tool === 'evaluate_action') : cases,
        },
      ];
      for (const { prefix, client, pid, cases } of faces)
        for (const testCase of cases) {
          for (const inFlight of [1, concurrency]) {
            const mode = inFlight === 1 ? 'sequential' : 'concurrent';
            const name = `${prefix}.${testCase.tool}.${mode}`;
            const { base, load, ratio } = await measurePair(
              httpAttempt(daemon.url, testCase),
              mcpAttempt(client, testCase),
              inFlight,
              () => resetPeakRss(pid),
            );
            const { firstError, ...numbers } = load;
            const result = {
              name,
              tool: testCase.tool,
              in_flight: inFlight,
              ...numbers,
              baseline: {
                name: `${testCase.baseline}.${mode}`,
                calls_per_sec: base.calls_per_sec,
                p50_ms: base.p50_ms,
                p99_ms: base.p99_ms,
                errors: base.errors,
              },
              ratio_to_baseline: ratio,
              peak_rss_bytes: readPeakRssBytes(pid),
            };
            process.stdout.write(`${JSON.stringify({ ...result, ...host })}\n`);
            if (load.errors > 0) failures.push(`${name}: ${load.errors} failed calls, first: ${firstError}`);
            if (base.errors > 0)
              failures.push(`${name} baseline: ${base.errors} failed, first: ${base.firstError}`);
            failures.push(
              ...guardRatio(`${name}.calls_per_sec/http`, ratio, 'MCP calls/s over direct HTTP requests/s'),
            );
          }
        }
      await overHttp.close();
    } catch (error) {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}; ai mcp stderr: ${mcp.stderr()}`,
      );
    } finally {
      await mcp.client.close();
    }
  } finally {
    await daemon.stop();
  }
  return failures;
}

await benchMain({
  name: 'ai.bench',
  deadlineMs,
  isGuard,
  run: runBench,
  cleanup: () => removeDir(dataDir),
});
