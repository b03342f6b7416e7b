import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventFieldsHeader, eventFieldsHeaderPath } from '../../src/model/event-fields-header.js';
import { contentFields, eventFields } from '../../src/model/event-fields.js';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { raw, readRows, sql } from '../../src/store/sql.js';
import { canonicalContent, attrsInContent } from '../../src/telemetry/event-hash.js';
import { eventJson, eventJsonColumns, type EventJsonRow } from '../../src/telemetry/event-json.js';
import {
  rehashStoredEvent,
  storedEventColumns,
  storedEventContentSql,
} from '../../src/telemetry/stored-event-hash.js';
import { openTestStore, testEvent, type TestStore } from '../support/store.js';

describe('event fields', function () {
  let store: TestStore;
  before(async function () {
    store = await openTestStore();
  });
  after(function () {
    store.close();
  });

  it('are each a column of the migrated events table, of the type the table declares', async function () {
    const columns = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'events'`,
    );
    const types = new Map(columns.map((column) => [column['column_name'], column['data_type']]));
    for (const field of eventFields) assert.equal(types.get(field.key), field.sqlType, field.key);
  });

  it('are stored, answered and rehashed from the table: a login uid set is covered, one unset is left out', async function () {
    const events = [testEvent({ loginUid: 1000, comm: 'sudo' }), testEvent({ loginUid: null, comm: 'cron' })];
    await store.insert('b', events, undefined);
    const rows = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT ${raw(`${eventJsonColumns}, ${storedEventColumns}`)} FROM events ORDER BY seq`,
    );
    assert.equal(rows.length, 2);
    rows.forEach((row, i) => {
      const answer = JSON.parse(eventJson(row as unknown as EventJsonRow)) as Record<string, unknown>;
      assert.equal(answer['login_uid'], events[i]!.loginUid);
      assert.equal(rehashStoredEvent(row as never), row['hash']);
    });
    // and DuckDB's rehash of the same rows (verify's first pass) agrees
    const rehashed = await readRows<Record<string, unknown>>(
      store.connection,
      sql`SELECT 'sha256:' || sha256(${raw(storedEventContentSql)}) = hash AS same FROM events ORDER BY seq`,
    );
    assert.deepEqual(
      rehashed.map((row) => row['same']),
      [true, true],
    );
    assert.ok(canonicalContent(events[0]!).includes('"login_uid":1000,"pid":'));
    assert.ok(!canonicalContent(events[1]!).includes('login_uid'));
  });

  it('put attrs first in the content and a fact always written after them, which ends them', function () {
    // the compiled content writes the keys in JCS order (RFC 8785: sorted), attrs first
    const keys = Object.keys(JSON.parse(canonicalContent(testEvent({ loginUid: 7 }))) as object);
    assert.deepEqual(keys, [...keys].sort());
    assert.deepEqual(
      keys,
      contentFields.map((field) => field.key),
    );
    const event = testEvent({ attrs: { note: ',"cgroup_id":"x"', cgroup: { a: 1, cgroup_id: 1 } } });
    assert.equal(attrsInContent(canonicalContent(event)), canonicalJson(event.attrs));
  });

  it('are what the committed native header states (the build fails otherwise: npm run generate)', function () {
    assert.equal(readFileSync(join(packageRoot, eventFieldsHeaderPath), 'utf8'), eventFieldsHeader());
  });
});
