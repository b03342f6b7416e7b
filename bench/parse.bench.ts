/**
 * Producer-format parse benchmark (`npm run bench:parse`; `npm run bench:parse:guard` adds --short
 * --guard). The real published lines of test/fixtures/real/ (Tetragon exports, Falco alerts) and
 * native lines are repeated into ~4 MiB bodies, then each printed as one JSON line on stdout:
 *
 * - `parse.baseline.json`: JSON.parse of every line, split on newlines: the floor any parser pays;
 * - `parse.<format>`: parseNdjson (decode, JSON.parse, context check, map, classify) on the same
 *   bodies, in events/s, p50/p99 per body, and `ratio_to_json_parse`.
 *
 * `--guard` fails when any line is rejected, or when a format's ratio to the JSON.parse rate measured
 * in the same run falls more than 25% below the one recorded in bench/baselines.json: it guards the
 * per-line mapping of the hot path, not absolute speed.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseNdjson } from '../src/ingest/parse-ndjson.js';
import type { IngestFormat } from '../src/model/event.js';
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
const bodyBytes = 4 * 1024 * 1024;
const rounds = flags.short ? 7 : 20;
const host = describeHost();
const fixtures = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));

/** Non-blank lines of a fixture file. */
function fixtureLines(path: string): string[] {
  return readFileSync(fixtures + path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Repeats `lines` into one body of about bodyBytes. */
function body(lines: readonly string[]): { bytes: Buffer; lines: number } {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bodyBytes; i++) {
    const line = lines[i % lines.length]!;
    out.push(line);
    size += line.length + 1;
  }
  return { bytes: Buffer.from(out.join('\n') + '\n'), lines: out.length };
}

function emit(result: Record<string, unknown>): void {
  process.stdout.write(
    `${JSON.stringify({ ...result, load_1m: Number(loadavg()[0]!.toFixed(2)), ...host })}\n`,
  );
}

/** Times `parse` over `rounds` passes of the body: events/s and per-body latency. */
function time(
  parse: () => number,
  lines: number,
): { events_per_sec: number; p50_ms: number; p99_ms: number; parsed: number } {
  const samples: number[] = [];
  let parsed = 0;
  parse(); // warm-up
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    parsed = parse();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const totalMs = samples.reduce((sum, ms) => sum + ms, 0);
  return {
    events_per_sec: Math.round((lines * rounds * 1000) / totalMs),
    p50_ms: percentileMs(samples, 50),
    p99_ms: percentileMs(samples, 99),
    parsed,
  };
}

function run(): Promise<string[]> {
  const failures: string[] = [];
  const workloads: [string, IngestFormat, string[]][] = [
    ['tetragon', 'tetragon', fixtureLines('real/tetragon.jsonl')],
    ['falco', 'falco', fixtureLines('real/falco.jsonl')],
    ['native', 'native', fixtureLines('native-ebpf-events.jsonl')],
  ];
  for (const [name, format, lines] of workloads) {
    const { bytes, lines: count } = body(lines);
    const text = bytes.toString('utf8');
    const baseline = time(() => {
      let n = 0;
      for (const line of text.split('\n')) if (line !== '') n += JSON.parse(line) === null ? 0 : 1;
      return n;
    }, count);
    emit({
      name: `parse.baseline.json.${name}`,
      ...baseline,
      events: count,
      bytes: bytes.length,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    });
    let rejected = 0;
    const result = time(() => {
      const parsed = parseNdjson(bytes, format, 1);
      rejected = parsed.rejected;
      return parsed.events.length;
    }, count);
    const ratio = Number((result.events_per_sec / baseline.events_per_sec).toFixed(3));
    emit({
      name: `parse.${name}`,
      ...result,
      rejected,
      ratio_to_json_parse: ratio,
      events: count,
      bytes: bytes.length,
      peak_rss_bytes: process.resourceUsage().maxRSS * 1024,
    });
    if (rejected > 0) failures.push(`${name}: ${rejected} lines rejected`);
    // guarded on the medians of the rounds: one burst of other work on the host moves a total, not a median
    failures.push(
      ...guardRatio(
        `parse.${name}.p50/json_parse`,
        baseline.p50_ms / result.p50_ms,
        "JSON.parse's median round over the parser's",
      ),
    );
  }
  return Promise.resolve(failures);
}

await benchMain({
  name: 'parse.bench',
  deadlineMs: flags.short ? 60_000 : 600_000,
  isGuard: flags.guard,
  run,
  cleanup: () => undefined,
});
