/**
 * One HTTP load measurement with autocannon, in this process: a warm-up run whose numbers are
 * thrown away, then the measured run, each bounded by its duration.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

import autocannon from 'autocannon';

/** How hard and how long to load one URL. */
export interface LoadPlan {
  warmupS: number;
  durationS: number;
  connections: number;
}

/** The request each connection sends: GET without a body unless given. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** What one measured run observed, in the units of the benchmark's JSON lines. */
export interface HttpLoad {
  requests_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /** Wall time of the measured run; autocannon ends it on its next 1 s sample after the duration. */
  duration_s: number;
  connections: number;
}

/** Warms `url` up, then loads it for `plan.durationS` seconds and summarises the measured run. */
export async function measureHttp(
  url: string,
  plan: LoadPlan,
  request: LoadRequest = { method: 'GET' },
): Promise<HttpLoad> {
  await runAutocannon(url, request, plan.connections, plan.warmupS, createHistogram());
  const latencyUs = createHistogram();
  const result = await runAutocannon(url, request, plan.connections, plan.durationS, latencyUs);
  return {
    requests_per_sec: Math.round(result.requests.average),
    p50_ms: latencyUs.count > 0 ? latencyUs.percentile(50) / 1000 : 0,
    p99_ms: latencyUs.count > 0 ? latencyUs.percentile(99) / 1000 : 0,
    errors: result.errors,
    non2xx: result.non2xx,
    duration_s: result.duration,
    connections: result.connections,
  };
}

/**
 * Runs autocannon against `url` over keep-alive connections with no pipelining, recording each
 * response time into `latencyUs` in microseconds: autocannon's own histogram truncates to whole
 * milliseconds, which reads 0 for everything on loopback.
 */
function runAutocannon(
  url: string,
  request: LoadRequest,
  connections: number,
  durationS: number,
  latencyUs: RecordableHistogram,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    // a request unanswered for 2 s counts as an error instead of stretching the run
    const options = { url, ...request, connections, pipelining: 1, duration: durationS, timeout: 2 };
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }));
      else resolve(result);
    });
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      latencyUs.record(Math.max(1, Math.round(responseTimeMs * 1000)));
    });
  });
}
