import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { readRows, sql } from '../../src/store/sql.js';
import { canonicalEventContent, hashEvent } from '../../src/telemetry/event-hash.js';
import { eventRowsSource } from '../../src/telemetry/event-commit.sql.js';
import { encodeEventRow } from '../../src/telemetry/event-row.js';
import type { ParsedEvent } from '../../src/model/event.js';
import { useTempDir } from '../support/temp-dir.js';

/** Strings a sensor or a hostile process can put in comm, ids or attrs: every one must come back as written. */
function hostileStrings(): string[] {
  const specials = ['\ufeff', '\ufffe', '\uffff', '\ufffd', '\u2028', '\u2029', '\u200b', '😀', '\u{10ffff}'];
  const chars = [...Array.from({ length: 0x100 }, (_v, code) => String.fromCharCode(code)), ...specials];
  const strings = chars.flatMap((char) => [char, `${char}x`, `x${char}`, `x${char}y`, char + char]);
  return [...strings, '\ufeff\ufeff\ufeffbom', '""', '","', '\r\n', '\\N', 'NULL', ''];
}

/** Writes records as one rows file, loads it with the store's own read_csv call, returns the rows. */
async function roundTrip(
  connection: DuckDBConnection,
  dir: string,
  records: { event: ParsedEvent; id: string }[],
): Promise<Record<string, unknown>[]> {
  const file = join(dir, `rows-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(
    file,
    records
      .map(({ event }, i) => {
        const attrsJson = canonicalJson(event.attrs);
        const hashHex = hashEvent(event, attrsJson).slice('sha256:'.length);
        return encodeEventRow(i, event, attrsJson, hashHex, false, undefined);
      })
      .join(''),
  );
  return readRows(connection, sql`SELECT * FROM ${eventRowsSource([file])} ORDER BY idx`);
}

/** The event as a row reads back, for rehashing. */
function eventOfRow(row: Record<string, unknown>, template: ParsedEvent): ParsedEvent {
  return {
    ...template,
    time: row['time'] as string,
    pid: row['pid'] as number | null,
    tgid: row['tgid'] as number | null,
    ppid: row['ppid'] as number | null,
    uid: row['uid'] === null ? null : Number(row['uid']),
    loginUid: row['login_uid'] as number | null,
    comm: row['comm'] as string | null,
    cgroupId: row['cgroup_id'] as string | null,
    containerId: row['container_id'] as string | null,
    attrs: JSON.parse(row['attrs'] as string) as Record<string, unknown>,
  };
}

describe('event rows file', function () {
  const dir = useTempDir('provd-rows-', { per: 'suite' });
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async function () {
    instance = await DuckDBInstance.create(':memory:');
    connection = await instance.connect();
  });
  after(function () {
    connection.closeSync();
    instance.closeSync();
  });

  const base: ParsedEvent = {
    type: 'execve',
    source: 'native_jsonl',
    time: '2026-01-01T00:00:01Z',
    timeNs: 1_767_225_601_000_000_000n,
    pid: 1,
    tgid: 1,
    ppid: 1,
    uid: 0,
    loginUid: null,
    comm: 'sh',
    cgroupId: '1',
    containerId: 'c',
    attrs: {},
  };

  it('reads back every string byte for byte when it holds controls, quotes, BOMs or astral characters', async function () {
    const strings = hostileStrings();
    const records = strings.map((text, i) => ({
      event: { ...base, comm: text, cgroupId: text, containerId: text, attrs: { [text]: text } },
      id: `b.${i}`,
    }));
    const rows = await roundTrip(connection, dir.path, records);
    assert.equal(rows.length, strings.length);
    rows.forEach((row, i) => {
      const text = strings[i]!;
      const shown = JSON.stringify(text);
      assert.equal(row['comm'], text, `comm ${shown}`);
      assert.equal(row['cgroup_id'], text, `cgroup_id ${shown}`);
      assert.equal(row['container_id'], text, `container_id ${shown}`);
      assert.deepEqual(JSON.parse(row['attrs'] as string), { [text]: text }, `attrs ${shown}`);
    });
  });

  it('keeps NULL and the empty string apart', async function () {
    const rows = await roundTrip(connection, dir.path, [
      { event: { ...base, comm: null, cgroupId: '', containerId: null }, id: 'b.0' },
    ]);
    assert.equal(rows[0]!['comm'], null);
    assert.equal(rows[0]!['cgroup_id'], '');
    assert.equal(rows[0]!['container_id'], null);
  });

  it('holds pids, uids and instants at the edges of what the parsers accept', async function () {
    const edges = [
      { pid: 0, time: '1678-01-01T00:00:00Z', timeNs: -9_214_560_000_000_000_000n },
      { pid: 4_294_967_295, time: '2261-12-31T23:59:59.999999999Z', timeNs: 9_214_646_399_999_999_999n },
    ];
    const rows = await roundTrip(
      connection,
      dir.path,
      edges.map((edge, i) => ({
        event: { ...base, ...edge, tgid: edge.pid, ppid: edge.pid, uid: 4_294_967_295 },
        id: `b.${i}`,
      })),
    );
    rows.forEach((row, i) => {
      assert.equal(row['pid'], edges[i]!.pid);
      assert.equal(row['ppid'], edges[i]!.pid);
      assert.equal(row['time_ns'], edges[i]!.timeNs);
      assert.equal(row['uid'], 4_294_967_295n);
    });
  });

  it('rehashes every event of the sample exports to the hash stored beside it', async function () {
    const names = [
      'falco-network-connect.jsonl',
      'falco-risk-events.jsonl',
      'llm-causal-events.jsonl',
      'loongcollector-file-write.jsonl',
      'native-ebpf-events.jsonl',
      'supply-chain-exfil.jsonl',
      'tetragon-docs-events.jsonl',
      'tetragon-process-exec.jsonl',
    ];
    const events = names.flatMap(
      (name) => parseNdjson(readFileSync(join(packageRoot, 'test', 'fixtures', name)), 'auto', 1).events,
    );
    assert.ok(events.length >= 27, `parsed ${events.length} events`);
    const rows = await roundTrip(
      connection,
      dir.path,
      events.map((event, i) => ({ event, id: `b.${i}` })),
    );
    rows.forEach((row, i) => {
      const back = eventOfRow(row, events[i]!);
      const attrsJson = canonicalJson(back.attrs);
      assert.equal(attrsJson, row['attrs'], 'attrs are stored canonical');
      assert.equal(
        hashEvent(back, attrsJson),
        `sha256:${row['hash'] as string}`,
        canonicalEventContent(back, attrsJson),
      );
    });
  });
});
