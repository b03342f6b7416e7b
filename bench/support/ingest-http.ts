/**
 * The HTTP side of the ingest benchmark: keep-alive requests to the daemon, NDJSON bodies posted
 * with a fixed number in flight (a 429 waits its Retry-After and retries), and sequential GETs timed
 * one by one. Latencies are kept whole, so percentiles are exact rather than bucketed.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkloadRun } from './ingest-workload.js';

/** One answer, body included. */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends requests to one daemon over a bounded set of keep-alive sockets. */
export class HttpClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    sockets: number,
    /** An answer not complete after this long fails the request. */
    private readonly timeoutMs = 120_000,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  /** Sends one request and collects the whole answer; rejects on a socket error or the timeout. */
  send(method: 'GET' | 'POST', path: string, body?: Uint8Array, contentType?: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {};
      if (body !== undefined) {
        headers['content-type'] = contentType ?? 'application/json';
        headers['content-length'] = body.length;
      }
      const req = httpRequest(
        new URL(path, this.baseUrl),
        { method, agent: this.agent, headers, timeout: this.timeoutMs },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Sends a JSON body and parses the JSON answer; rejects unless the status is 200. */
  async postJson(path: string, value: unknown): Promise<unknown> {
    const answer = await this.send('POST', path, Buffer.from(JSON.stringify(value)));
    if (answer.status !== 200) throw new Error(`POST ${path}: ${answer.status} ${answer.body.toString()}`);
    return JSON.parse(answer.body.toString()) as unknown;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The ingest answer fields the benchmark checks (schema provenance.ingest/v1). */
interface IngestAnswer {
  accepted: number;
  rejected: number;
  pending: number;
}

/** What posting a stream of NDJSON bodies observed. */
export interface PostRun {
  requests: number;
  /** Wall time from the first request sent to the last answer received. */
  elapsedMs: number;
  /** Per request, first send to its 200 answer (after any 429 retries): the commit is in by then. */
  latenciesMs: number[];
  accepted: number;
  rejected: number;
  pending: number;
  retries429: number;
  /** Requests that did not end in a 200, with why; a failed request is not retried. */
  failures: string[];
}

/**
 * Posts every body of `bodies` to `path`, `inFlight` at a time; each sender takes the next body when
 * its answer is in. `bodies` may be lazy: it is pulled only as fast as requests go out.
 */
export async function postBodies(
  client: HttpClient,
  path: string,
  bodies: Iterator<Uint8Array>,
  inFlight: number,
): Promise<PostRun> {
  const run: PostRun = {
    requests: 0,
    elapsedMs: 0,
    latenciesMs: [],
    accepted: 0,
    rejected: 0,
    pending: 0,
    retries429: 0,
    failures: [],
  };
  const started = performance.now();
  const sender = async (): Promise<void> => {
    for (let next = bodies.next(); next.done !== true; next = bodies.next()) {
      run.requests++;
      const sent = performance.now();
      try {
        const answer = await postWithRetry(client, path, next.value, run);
        if (answer.status !== 200) {
          run.failures.push(`${answer.status} ${answer.body.toString().slice(0, 300)}`);
          continue;
        }
        run.latenciesMs.push(performance.now() - sent);
        const summary = JSON.parse(answer.body.toString()) as IngestAnswer;
        run.accepted += summary.accepted;
        run.rejected += summary.rejected;
        run.pending += summary.pending;
      } catch (error) {
        run.failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  run.elapsedMs = performance.now() - started;
  return run;
}

/** Most 429 answers one body may get before it counts as failed. */
const maxRetries = 100;

async function postWithRetry(
  client: HttpClient,
  path: string,
  body: Uint8Array,
  run: PostRun,
): Promise<HttpAnswer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await client.send('POST', path, body, 'application/x-ndjson');
    if (answer.status !== 429 || attempt === maxRetries) return answer;
    run.retries429++;
    const seconds = Number(answer.headers['retry-after'] ?? 1);
    await sleep(Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 30) * 1000 : 1000);
  }
}

/** Latencies of a series of sequential requests. */
export interface TimedSeries {
  requests: number;
  elapsedMs: number;
  latenciesMs: number[];
  /** Answers other than 200, and errors. */
  failures: string[];
  /** The last 200 answer, for the caller to check. */
  lastBody: Buffer | null;
}

/** Requests `path` `warmup` times untimed, then `count` times one after another, timing each. */
export async function timeGets(
  client: HttpClient,
  path: string,
  count: number,
  warmup: number,
): Promise<TimedSeries> {
  const series: TimedSeries = { requests: 0, elapsedMs: 0, latenciesMs: [], failures: [], lastBody: null };
  for (let i = 0; i < warmup; i++) await client.send('GET', path);
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    series.requests++;
    const sent = performance.now();
    try {
      const answer = await client.send('GET', path);
      if (answer.status !== 200)
        series.failures.push(`${answer.status} ${answer.body.toString().slice(0, 300)}`);
      else {
        series.latenciesMs.push(performance.now() - sent);
        series.lastBody = answer.body;
      }
    } catch (error) {
      series.failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  series.elapsedMs = performance.now() - started;
  return series;
}

/** The p-th percentile (nearest rank) of `values` in ms to three decimals; 0 when there are none. */
export function percentileMs(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return Number(sorted[rank - 1]!.toFixed(3));
}

/** Binds every bound run's cgroup, as a harness would before the tool call runs. */
export async function bindRuns(client: HttpClient, runs: readonly WorkloadRun[]): Promise<void> {
  for (const run of runs.filter((candidate) => candidate.bound)) {
    await client.postJson('/v1/telemetry/bind', {
      run_id: run.runId,
      tool_call_id: run.toolCallId,
      cgroup_id: run.cgroupId,
    });
  }
}

/**
 * Gives each bound run an agent's hook tool call still open (a Claude Code Bash PreToolUse), so every
 * commit of the run goes through the tool call tie (src/telemetry/tool-call-tie.sql.ts): its cost.
 */
export async function openHookCalls(client: HttpClient, runs: readonly WorkloadRun[]): Promise<void> {
  for (const run of runs.filter((candidate) => candidate.bound)) {
    await client.postJson(`/v1/hooks/claude?run=${encodeURIComponent(run.runId)}`, {
      session_id: run.runId,
      transcript_path: '/tmp/bench.jsonl',
      cwd: `/workspace/${run.runId}`,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'make test' },
      tool_use_id: `toolu_bench_${run.runId}`,
    });
  }
}
