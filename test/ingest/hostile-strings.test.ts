/**
 * A property test of every rows file provd writes (events, decisions): random strings of every
 * character class a producer can send (C0 controls, CR, LF, CRLF, U+001E, U+FEFF, NUL, C1, quotes,
 * astral characters, lone surrogate escapes, raw invalid UTF-8, long runs) in every string field of
 * each producer format, as the first and only line of a body and in bodies of 1,000 lines, through
 * the real daemon. Each request answers 200; each line is stored or refused alone, with a line error
 * whose code the parser gives it; every stored value reads back as parsed; every decision's reason,
 * advisory and policy read back as the rules file holds them.
 *
 * Seeded: PROVD_TEST_SEED=<n> replays a run (a failure names its seed and case); the default seed
 * is fixed, so `npm test` is reproducible. Issue 41: before the rows files stated their newline, seed
 * 41 failed at its first case of each format (native-single-0, tetragon-single-0, falco-single-0):
 * 500 `internal` for a one-line body holding `\r` (DuckDB took it for the files' newline).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import type { IngestFormat, ParsedEvent } from '../../src/model/event.js';
import { startDaemon, removeDir, type RunningDaemon, makeDataDir } from '../support/daemon.js';
import { pageItems, request } from '../support/http.js';
import { bind, pageAll, rehash } from '../support/telemetry.js';

const seed = Number(process.env['PROVD_TEST_SEED'] ?? 41);
const singleBodies = 12; // one-line bodies per format
const longBodies = 1; // 1,000-line bodies per format
const longLines = 1000;

/** A small seeded generator (mulberry32): the same seed gives the same cases. */
class Rng {
  private state: number;
  constructor(seedValue: number) {
    this.state = seedValue >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(bound: number): number {
    return Math.floor(this.next() * bound);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The pieces a random string is made of, by class. */
const pieces: readonly ((rng: Rng) => string)[] = [
  (rng) => String.fromCharCode(rng.int(0x20)), // C0 control
  () => '\r',
  () => '\n',
  () => '\r\n',
  () => '\u001e', // the rows files' quote
  () => '\ufeff',
  () => '\u0000',
  (rng) => String.fromCharCode(0x7f + rng.int(0x21)), // DEL and C1
  (rng) => String.fromCharCode(0x20 + rng.int(0x5f)), // printable ASCII
  (rng) => rng.pick(['"', ',', '\\', '\\N', 'NULL', "'", '\t', ' ', '->', '://', '/']),
  (rng) => rng.pick(['\u2028', '\u2029', '\ufffe', '\uffff', '\ufffd', 'é', '漢', '\u200b']),
  (rng) => rng.pick(['😀', '\u{10ffff}', '\u{1d11e}']),
  (rng) => 'x'.repeat(1 + rng.int(40)),
];

/** How random a string may be: lone surrogates only where a refusal is expected and fine. */
interface StringKind {
  lone: boolean;
}

/** A random string: empty, a few pieces, rarely a long run, rarely (when allowed) a lone surrogate. */
function randomString(rng: Rng, kind: StringKind = { lone: true }): string {
  if (rng.chance(0.05)) return '';
  let text = '';
  const count = 1 + rng.int(8);
  for (let i = 0; i < count; i++) text += rng.pick(pieces)(rng);
  if (rng.chance(0.01)) {
    const length = 2_000 + rng.int(30_000); // UTF-16 units: lines stay under the 1 MiB line limit
    const piece = rng.pick(pieces)(rng);
    text += piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
  }
  if (kind.lone && rng.chance(0.004)) {
    const at = rng.int(text.length + 1);
    const lone = String.fromCharCode(rng.chance(0.5) ? 0xd800 + rng.int(0x400) : 0xdc00 + rng.int(0x400));
    text = text.slice(0, at) + lone + text.slice(at);
  }
  return text;
}

/** A string without C0/C1 controls or lone surrogates: what bind accepts as an id. */
function randomId(rng: Rng, tag: string): string {
  const text = [...randomString(rng, { lone: false })]
    .filter((char) => char.charCodeAt(0) >= 0x20 && (char.charCodeAt(0) < 0x7f || char.charCodeAt(0) > 0x9f))
    .join('')
    .slice(0, 200);
  return `${tag}${text}`;
}

/** JSON text of a string, with characters escaped at random (\uXXXX or short escapes) as JSON allows. */
function jsonString(rng: Rng, text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const char = text[i]!;
    if (code < 0x20 || char === '"' || char === '\\' || (code >= 0xd800 && code <= 0xdfff)) {
      const short: Record<string, string> = {
        '"': '\\"',
        '\\': '\\\\',
        '\n': '\\n',
        '\r': '\\r',
        '\t': '\\t',
      };
      out +=
        short[char] !== undefined && rng.chance(0.7)
          ? short[char]
          : `\\u${code.toString(16).padStart(4, '0')}`;
    } else if (rng.chance(0.05)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out + '"';
}

/** JSON text of a value, its strings (keys included) through jsonString. */
function jsonText(rng: Rng, value: unknown): string {
  if (typeof value === 'string') return jsonString(rng, value);
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(rng, item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${jsonString(rng, key)}:${jsonText(rng, item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const time = '2026-01-01T00:00:01.000000001Z';

/** One line of a producer format: `pid` names the case's process, `uid` the line's index. */
type LineMaker = (rng: Rng, pid: number, uid: number) => Record<string, unknown>;

const lineMakers: Record<Exclude<IngestFormat, 'auto'>, LineMaker> = {
  native: (rng, pid, uid) => ({
    event_type: rng.pick(['execve', 'file_open', 'dns_query', 'file_write', 'generic']),
    timestamp: time,
    pid,
    tgid: pid,
    uid,
    comm: randomString(rng),
    cgroup_id: randomString(rng),
    container_id: randomString(rng),
    source: randomString(rng),
    path: randomString(rng),
    new_path: randomString(rng),
    command: randomString(rng),
    cwd: randomString(rng),
    query: randomString(rng),
    data: randomString(rng),
    flags: randomString(rng),
    argv: [randomString(rng), randomString(rng), randomString(rng)],
    [`x${randomString(rng)}`]: randomString(rng),
    nested: { [randomString(rng)]: [randomString(rng), { k: randomString(rng) }] },
  }),
  tetragon: (rng, pid, uid) => {
    const process = {
      exec_id: randomString(rng),
      pid,
      uid,
      cwd: randomString(rng),
      binary: randomString(rng),
      arguments: randomString(rng),
      flags: 'execve',
      start_time: time,
      parent_exec_id: randomString(rng),
      docker: randomString(rng),
      pod: {
        namespace: randomString(rng),
        name: randomString(rng),
        container: {
          id: randomString(rng),
          name: randomString(rng),
          image: { id: randomString(rng), name: randomString(rng) },
        },
      },
    };
    const parent = { pid: 1, binary: randomString(rng) };
    const kind = rng.pick(['exec', 'file', 'string', 'other']);
    if (kind === 'exec') return { process_exec: { process, parent }, node_name: randomString(rng), time };
    const functionName =
      kind === 'file' ? 'security_file_permission' : kind === 'string' ? 'do_unlinkat' : randomString(rng);
    const args =
      kind === 'file'
        ? [{ file_arg: { path: randomString(rng), permission: randomString(rng) } }, { int_arg: 4 }]
        : [{ string_arg: randomString(rng) }, { int_arg: 1 }];
    return {
      process_kprobe: {
        process,
        parent,
        function_name: functionName,
        args,
        action: 'KPROBE_ACTION_POST',
        policy_name: randomString(rng),
        message: randomString(rng),
        tags: [randomString(rng), randomString(rng)],
      },
      node_name: randomString(rng),
      time,
    };
  },
  falco: (rng, pid, uid) => {
    const evtType = rng.pick(['execve', 'openat', undefined]);
    return {
      output: randomString(rng),
      priority: rng.pick(['Warning', 'Notice', randomString(rng)]),
      rule: randomString(rng),
      time,
      hostname: randomString(rng),
      source: 'syscall',
      tags: [randomString(rng), randomString(rng)],
      output_fields: {
        'evt.type': evtType,
        'proc.pid': pid,
        'user.uid': uid,
        'proc.name': randomString(rng),
        'proc.cmdline': randomString(rng),
        'proc.exepath': randomString(rng),
        'fd.name': evtType === 'openat' ? randomString(rng) : undefined,
        'container.id': randomString(rng),
        'user.name': randomString(rng),
        'proc.pname': randomString(rng),
        [randomString(rng)]: randomString(rng),
      },
    };
  },
};

/** Bytes no UTF-8 text holds: a line carrying one is refused as invalid_utf8. */
const invalidUtf8 = [Buffer.from([0xff]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80])];

/** A body of `count` lines of `format`, as bytes (some lines carry raw invalid UTF-8 in a string). */
function makeBody(
  rng: Rng,
  format: Exclude<IngestFormat, 'auto'>,
  pid: number,
  count: number,
): { body: Buffer; sent: Record<string, unknown>[] } {
  const lines: Buffer[] = [];
  const sent: Record<string, unknown>[] = [];
  for (let uid = 0; uid < count; uid++) {
    const line = lineMakers[format](rng, pid, uid);
    const text = jsonText(rng, line);
    sent.push(line);
    let bytes = Buffer.from(text);
    if (rng.chance(0.01)) {
      // raw invalid bytes inside the first string value
      const at = text.indexOf('":"') + 3;
      const cut = Buffer.byteLength(text.slice(0, at));
      bytes = Buffer.concat([bytes.subarray(0, cut), rng.pick(invalidUtf8), bytes.subarray(cut)]);
    }
    lines.push(bytes);
  }
  const ending = rng.chance(0.2) ? '\r\n' : '\n';
  return { body: Buffer.concat(lines.flatMap((line) => [line, Buffer.from(ending)])), sent };
}

/** JSON's view of a value: what a parser reads of it (keys with undefined values left out). */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/**
 * Fields each format keeps exactly as sent, read from the line itself (not from the parser): the
 * stored event must hold them unchanged.
 */
const keptAsSent: Record<
  Exclude<IngestFormat, 'auto'>,
  (sent: Record<string, unknown>, stored: Record<string, unknown>) => void
> = {
  native: (sent, stored) => {
    const attrs = stored['attrs'] as Record<string, unknown>;
    assert.equal(stored['comm'], sent['comm'] === '' ? null : sent['comm'], 'comm');
    assert.equal(stored['container_id'], sent['container_id'] === '' ? null : sent['container_id']);
    assert.equal(attrs['producer'], sent['source'], 'source');
    assert.deepEqual(attrs['argv'], sent['argv'], 'argv');
    assert.deepEqual(attrs['nested'], sent['nested'], 'nested');
    for (const key of ['new_path', 'command', 'cwd', 'data']) assert.equal(attrs[key], sent[key], key);
  },
  tetragon: (sent, stored) => {
    const body = (sent['process_exec'] ?? sent['process_kprobe']) as Record<string, unknown>;
    const proc = body['process'] as Record<string, unknown>;
    const attrs = stored['attrs'] as Record<string, unknown>;
    for (const key of ['arguments', 'cwd', 'exec_id', 'parent_exec_id'])
      assert.equal(attrs[key], proc[key], key);
    if (sent['process_kprobe'] !== undefined)
      for (const key of ['policy_name', 'message', 'tags']) assert.deepEqual(attrs[key], body[key], key);
  },
  falco: (sent, stored) => {
    const attrs = stored['attrs'] as Record<string, unknown>;
    for (const key of ['output', 'rule', 'hostname', 'tags']) assert.deepEqual(attrs[key], sent[key], key);
    assert.deepEqual(attrs['output_fields'], asJson(sent['output_fields']), 'output_fields');
  },
};

/** What a case must store: the events the parser makes of its body, by line index (uid). */
function expected(
  body: Buffer,
  format: IngestFormat,
): {
  events: Map<number, ParsedEvent>;
  errors: { line: number; code: string }[];
} {
  const result = parseNdjson(body, format, 1);
  return {
    events: new Map(result.events.map((event) => [event.uid!, event])),
    errors: result.errors.map(({ line, code }) => ({ line, code })),
  };
}

/** Asserts a stored event holds what its line parsed to, and recomputes to its hash. */
function assertStored(stored: Record<string, unknown>, parsed: ParsedEvent, where: string): void {
  assert.deepEqual(
    {
      type: stored['type'],
      source: stored['source'],
      time: stored['time_received'],
      pid: stored['pid'],
      tgid: stored['tgid'],
      ppid: stored['ppid'],
      uid: stored['uid'],
      comm: stored['comm'],
      cgroup_id: stored['cgroup_id'],
      container_id: stored['container_id'],
      attrs: stored['attrs'],
    },
    {
      type: parsed.type,
      source: parsed.source,
      time: parsed.time,
      pid: parsed.pid,
      tgid: parsed.tgid,
      ppid: parsed.ppid,
      uid: parsed.uid,
      comm: parsed.comm,
      cgroup_id: parsed.cgroupId,
      container_id: parsed.containerId,
      attrs: parsed.attrs,
    },
    where,
  );
  assert.equal(rehash(stored), stored['hash'], `${where}: the stored event recomputes to its hash`);
}

/** Rules whose texts are random: each judged event's decision row carries them. */
function writePolicy(rng: Rng, dir: string): { file: string; reasons: Map<string, string> } {
  const reasons = new Map<string, string>();
  const rule = (id: string, types: string[], mode: string): Record<string, unknown> => {
    // the first decision row of a commit often holds this reason: a CR in it, whatever the seed
    const reason = (id === 'hostile_exec' ? '\r' : '') + randomString(rng, { lone: false });
    reasons.set(id, reason);
    return {
      id,
      decision: 'deny',
      mode,
      reason,
      description: randomString(rng, { lone: false }),
      match: { event_types: types },
    };
  };
  const rules = [
    rule('hostile_exec', ['execve'], 'enforce'),
    rule('hostile_files', ['file_open', 'file_write', 'file_read'], 'detect'),
    rule('hostile_other', ['generic', 'dns_query'], 'enforce'),
  ];
  // the rules file's path is the decisions' `policy`: a name with a CR, a quote and the rows' quote
  const file = join(dir, `policy\r\n"\u001e${randomId(rng, 'p').replaceAll('/', '_').slice(0, 60)}.json`);
  writeFileSync(file, JSON.stringify({ include_default_rules: true, rules }));
  return { file, reasons };
}

describe('hostile strings in every rows file (property test)', function () {
  let daemon: RunningDaemon;
  let dataDir: string;
  let policy: { file: string; reasons: Map<string, string> };
  const rng = new Rng(seed);
  before(async function () {
    dataDir = makeDataDir();
    policy = writePolicy(rng, dataDir);
    daemon = await startDaemon({ dataDir: join(dataDir, 'data'), args: ['--policy', policy.file] });
  });
  after(async function () {
    await daemon.stop();
    removeDir(dataDir);
  });

  for (const format of ['native', 'tetragon', 'falco'] as const) {
    it(`stores or refuses each line alone, and reads back every value (${format})`, async function () {
      this.timeout(300_000);
      const sizes = [
        ...Array.from({ length: singleBodies }, () => 1),
        ...Array.from({ length: longBodies }, () => longLines),
      ];
      let stored = 0;
      let judged = 0;
      let refused = 0;
      for (const [index, count] of sizes.entries()) {
        const where = `seed ${seed}, case ${format}-${count === 1 ? 'single' : 'long'}-${index}`;
        const pid = 100_000 + index + 1000 * ['native', 'tetragon', 'falco'].indexOf(format);
        const runId = randomId(rng, `run-${format}-${index}-`);
        await bind(daemon.url, { run_id: runId, tool_call_id: randomId(rng, 'tc-'), pid });
        const { body, sent } = makeBody(rng, format, pid, count);
        try {
          const want = expected(body, format);
          const answer = await request(daemon.url, `/v1/telemetry/ingest?format=${format}`, {
            method: 'POST',
            body,
          });
          assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 2000));
          const errors = answer.body['errors'] as { line: number; code: string; message: string }[];
          assert.deepEqual(
            errors.map(({ line, code }) => ({ line, code })),
            want.errors.slice(0, errors.length),
          );
          for (const error of errors) assert.ok(error.message.length > 0, `line ${error.line} says why`);
          assert.equal(answer.body['rejected'], want.errors.length);
          refused += want.errors.length;
          assert.equal(answer.body['accepted'], want.events.size);

          const events = await pageAll(daemon.url, `run=${encodeURIComponent(runId)}`);
          assert.equal(events.length, want.events.size);
          for (const event of events) {
            const line = want.events.get(event['uid'] as number);
            assert.ok(line !== undefined, `stored uid ${String(event['uid'])} was sent`);
            assertStored(event, line, `${where}, line ${String(event['uid'])}`);
            keptAsSent[format](sent[event['uid'] as number]!, event);
          }
          stored += events.length;

          const risks = await pageItems<Record<string, unknown>>(
            daemon.url,
            `/v1/security/risks?run=${encodeURIComponent(runId)}`,
            'risks',
            1000,
          );
          for (const risk of risks) {
            assert.equal(risk['policy'], policy.file);
            const advisory = risk['advisory'] as { rule_id: string; reason: string } | null;
            const ruleId = advisory?.rule_id ?? (risk['rule_id'] as string);
            if (!policy.reasons.has(ruleId)) continue; // a built-in rule
            assert.equal(advisory?.reason ?? risk['reason'], policy.reasons.get(ruleId), ruleId);
            judged++;
          }
        } catch (error) {
          const shown = body.subarray(0, 600).toString('utf8');
          const message = error instanceof Error ? error.message : String(error);
          throw new Error(
            `${where} (replay: PROVD_TEST_SEED=${seed}): ${message}\nbody starts ${JSON.stringify(shown)}`,
            { cause: error },
          );
        }
      }
      assert.ok(stored > longLines / 2, `most lines were stored (${stored})`);
      assert.ok(refused > 0, `some lines were refused, each alone (${refused})`);
      assert.ok(judged > 0, `some decisions carry the rules' random texts (${judged})`);
    });
  }
});
