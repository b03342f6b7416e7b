/**
 * TLS reassembly benchmark (`npm run bench:tls`; `npm run bench:tls:guard` adds --short --guard).
 * Batches of TLS chunk records as the kernel side writes them (test/support/tls-chunks.ts), 64
 * connections each sending a POST with a 2 KiB JSON body and reading a 4 KiB response, run through
 * the TLS pool's reassembler in this process, then printed as one JSON line each:
 *
 * - `tls.baseline.sha256`: SHA-256 over the same plaintext: the floor, as the pool hashes every body;
 * - `tls.reassembly`: TlsReassembler.take on the batches: messages/s, MB/s of plaintext, p50/p99 per
 *   batch, `ratio_to_sha256`.
 *
 * `--guard` fails when a message is lost or unparsed, or when reassembly's ratio to the SHA-256 rate
 * measured in the same run falls more than 25% below the one recorded in bench/baselines.json: it
 * guards the per-byte path of the pool, not absolute speed.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { TlsReassembler } from '../src/sensor/tls/reassembler.js';
import { chunkBatch, type ChunkSpec } from '../test/support/tls-chunks.js';
import { benchMain } from './support/bench-main.js';
import { guardRatio } from './support/ratio-guard.js';
import { describeHost } from './support/host.js';
import { percentileMs } from './support/ingest-http.js';

const { values: flags } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    guard: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
  },
});
const rounds = flags.short ? 20 : 200;
const connections = 64;
const host = describeHost();

function emit(result: Record<string, unknown>): void {
  process.stdout.write(
    `${JSON.stringify({ ...result, load_1m: Number(loadavg()[0]!.toFixed(2)), ...host, peak_rss_bytes: process.resourceUsage().maxRSS * 1024 })}\n`,
  );
}

/** One exchange per connection: a request written, its response read, each one call. */
function exchanges(round: number): { specs: ChunkSpec[]; plaintext: Buffer[] } {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
  const answer = JSON.stringify({
    id: `msg_${round}`,
    content: 'y'.repeat(4000),
    usage: { input_tokens: 1 },
  });
  const request = `POST /v1/messages HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const response = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${answer.length}\r\n\r\n${answer}`;
  const specs: ChunkSpec[] = [];
  const timeNs = 1_790_000_000_000_000_000n + BigInt(round) * 1_000_000n;
  for (let conn = 1; conn <= connections; conn++) {
    specs.push({ data: request, conn: BigInt(conn), direction: 'write', timeNs });
    specs.push({ data: response, conn: BigInt(conn), direction: 'read', timeNs });
  }
  return { specs, plaintext: specs.map((spec) => Buffer.from(spec.data as string, 'latin1')) };
}

function run(): Promise<string[]> {
  const failures: string[] = [];
  const work = Array.from({ length: rounds }, (_, round) => exchanges(round));
  const batches = work.map(({ specs }) => chunkBatch(specs));
  const bytes = work.reduce(
    (sum, { plaintext }) => sum + plaintext.reduce((n, part) => n + part.length, 0),
    0,
  );
  const messages = rounds * connections * 2;

  const timed = (pass: (index: number) => void): { totalMs: number; samples: number[] } => {
    const samples: number[] = [];
    for (let index = 0; index < rounds; index++) {
      const start = process.hrtime.bigint();
      pass(index);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return { totalMs: samples.reduce((sum, ms) => sum + ms, 0), samples };
  };

  const baseline = timed((index) => {
    for (const part of work[index]!.plaintext) createHash('sha256').update(part).digest();
  });
  const baselineRate = bytes / baseline.totalMs / 1000;
  emit({
    name: 'tls.baseline.sha256',
    mb_per_sec: Number(baselineRate.toFixed(1)),
    p50_ms: percentileMs(baseline.samples, 50),
    p99_ms: percentileMs(baseline.samples, 99),
    bytes,
  });

  const reassembler = new TlsReassembler();
  const nowNs = 1_790_000_000_000_000_000n;
  const result = timed((index) => reassembler.take(new Uint8Array(batches[index]!), nowNs));
  const stats = reassembler.stats();
  const rate = bytes / result.totalMs / 1000;
  const ratio = Number((rate / baselineRate).toFixed(3));
  emit({
    name: 'tls.reassembly',
    messages_per_sec: Math.round((stats.messages * 1000) / result.totalMs),
    mb_per_sec: Number(rate.toFixed(1)),
    p50_ms: percentileMs(result.samples, 50),
    p99_ms: percentileMs(result.samples, 99),
    ratio_to_sha256: ratio,
    messages: stats.messages,
    expected_messages: messages,
    evicted: stats.evicted,
    unparsed: stats.unparsed,
    bytes,
  });
  if (stats.messages !== messages || stats.evicted + stats.unparsed > 0)
    failures.push(
      `${stats.messages} of ${messages} messages, ${stats.evicted} evicted, ${stats.unparsed} unparsed`,
    );
  // guarded on the medians of the rounds: one burst of other work on the host moves a total, not a median
  const medianRatio = percentileMs(baseline.samples, 50) / percentileMs(result.samples, 50);
  failures.push(
    ...guardRatio('tls.reassembly.p50/sha256', medianRatio, "SHA-256's median round over reassembly's"),
  );
  return Promise.resolve(failures);
}

await benchMain({
  name: 'tls.bench',
  deadlineMs: flags.short ? 60_000 : 600_000,
  isGuard: flags.guard,
  run,
  cleanup: () => undefined,
});
