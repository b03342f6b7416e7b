import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { knownHash, knownLine, knownText } from '../support/known-event.js';
import { canonicalJson } from '../../src/provenance/canonical-json.js';
import { canonicalEventContent, hashEvent } from '../../src/telemetry/event-hash.js';
import type { ParsedEvent } from '../../src/telemetry/event.js';

const event: ParsedEvent = {
  type: 'file_open',
  source: 'tetragon',
  time: '2026-01-01T00:00:01.5+02:00',
  timeNs: 1n,
  pid: 42,
  tgid: null,
  ppid: 1,
  uid: 0,
  comm: 'vi\u00e9',
  cgroupId: null,
  containerId: 'c"1',
  attrs: { path: '/etc/passwd', flags: ['O_RDONLY'] },
};

describe('event hash', function () {
  it('gives the known answer for a fixed native line', function () {
    const [parsed] = parseNdjson(Buffer.from(knownLine), 'native', 1).events;
    const attrsJson = canonicalJson(parsed!.attrs);
    assert.equal(canonicalEventContent(parsed!, attrsJson), knownText);
    assert.equal(hashEvent(parsed!, attrsJson), knownHash);
  });

  it('writes the same text as canonicalJson of the event facts, so the hand-ordered fast path cannot drift', function () {
    const attrsJson = canonicalJson(event.attrs);
    const facts = {
      type: event.type,
      source: event.source,
      time: event.time,
      pid: event.pid,
      tgid: event.tgid,
      ppid: event.ppid,
      uid: event.uid,
      comm: event.comm,
      cgroup_id: event.cgroupId,
      container_id: event.containerId,
      attrs: event.attrs,
    };
    assert.equal(canonicalEventContent(event, attrsJson), canonicalJson(facts));
  });

  it('is the sha256 of that text, and changes with any fact', function () {
    const attrsJson = canonicalJson(event.attrs);
    const expected =
      'sha256:' + createHash('sha256').update(canonicalEventContent(event, attrsJson)).digest('hex');
    assert.equal(hashEvent(event, attrsJson), expected);
    assert.notEqual(hashEvent({ ...event, pid: 43 }, attrsJson), expected);
  });
});
