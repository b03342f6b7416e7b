import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { parseNdjson } from '../../src/ingest/parse-ndjson.js';
import { knownHash, knownLine, knownText } from '../support/known-event.js';
import { canonicalJson } from '../../src/model/canonical-json.js';
import {
  attrsInContent,
  canonicalContent,
  canonicalEventContent,
  hashEvent,
} from '../../src/telemetry/event-hash.js';

/** canonicalContent with the attrs read back out of it. */
const contentAndAttrs = (facts: ParsedEvent): { content: string; attrsJson: string } => {
  const content = canonicalContent(facts);
  return { content, attrsJson: attrsInContent(content) };
};
import type { ParsedEvent } from '../../src/model/event.js';

const event: ParsedEvent = {
  type: 'file_open',
  source: 'tetragon',
  time: '2026-01-01T00:00:01.5+02:00',
  timeNs: 1n,
  pid: 42,
  tgid: null,
  ppid: 1,
  uid: 0,
  loginUid: null,
  comm: 'vi\u00e9',
  cgroupId: null,
  containerId: 'c"1',
  attrs: { path: '/etc/passwd', flags: ['O_RDONLY'] },
};

/**
 * An event's facts as the contract names them (docs/http-api.md), written out here apart from
 * src/model/event-fields.ts so the tests hold the table to the contract: login_uid only when set.
 */
function factsOf(facts: ParsedEvent): Record<string, unknown> {
  return {
    type: facts.type,
    source: facts.source,
    time: facts.time,
    pid: facts.pid,
    tgid: facts.tgid,
    ppid: facts.ppid,
    uid: facts.uid,
    ...(facts.loginUid === null ? {} : { login_uid: facts.loginUid }),
    comm: facts.comm,
    cgroup_id: facts.cgroupId,
    container_id: facts.containerId,
    attrs: facts.attrs,
  };
}

describe('event hash', function () {
  it('gives the known answer for a fixed native line', function () {
    const [parsed] = parseNdjson(Buffer.from(knownLine), 'native', 1).events;
    const attrsJson = canonicalJson(parsed!.attrs);
    assert.equal(canonicalEventContent(parsed!, attrsJson), knownText);
    assert.equal(hashEvent(parsed!, attrsJson), knownHash);
  });

  it('writes the same text as canonicalJson of the event facts, so the hand-ordered fast path cannot drift', function () {
    const attrsJson = canonicalJson(event.attrs);
    assert.equal(canonicalEventContent(event, attrsJson), canonicalJson(factsOf(event)));
  });

  it('writes login_uid, a fact added after events were hashed, only when set: the events without it keep their hashes', function () {
    const attrsJson = canonicalJson(event.attrs);
    const withLogin = { ...event, loginUid: 1000 };
    const facts = factsOf(withLogin);
    assert.equal(canonicalEventContent(withLogin, attrsJson), canonicalJson(facts));
    assert.equal(canonicalContent(withLogin), canonicalJson(facts));
    assert.ok(!canonicalContent(event).includes('login_uid'));
    assert.notEqual(hashEvent(withLogin, attrsJson), hashEvent(event, attrsJson));
    assert.equal(attrsInContent(canonicalContent(withLogin)), attrsJson);
  });

  it('is the sha256 of that text, and changes with any fact', function () {
    const attrsJson = canonicalJson(event.attrs);
    const expected =
      'sha256:' + createHash('sha256').update(canonicalEventContent(event, attrsJson)).digest('hex');
    assert.equal(hashEvent(event, attrsJson), expected);
    assert.notEqual(hashEvent({ ...event, pid: 43 }, attrsJson), expected);
  });

  describe('canonical content by JSON.stringify', function () {
    /** A deterministic pseudo-random generator (mulberry32), so a failure replays. */
    function random(seed: number): () => number {
      let state = seed >>> 0;
      return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = Math.imul(state ^ (state >>> 15), state | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
      };
    }
    const keys = [
      'a',
      'b',
      'Z',
      '_',
      'path',
      '10',
      '9',
      '0',
      '1',
      '',
      'é',
      '\u00ff',
      '\ud83d\ude00',
      '\u2028',
      'k"',
      'k\\',
      'k\n',
      'toJSON',
      'constructor',
    ];
    const numbers = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 5e-324, 2 ** 53 - 1, 123456789.125];
    const strings = [
      '',
      'x',
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u2028',
      'é',
      '😀',
      '</script>',
    ];

    function value(next: () => number, depth: number): unknown {
      const pick = next();
      if (depth > 2 || pick < 0.5) {
        const leaf = next();
        if (leaf < 0.3) return numbers[Math.floor(next() * numbers.length)];
        if (leaf < 0.7) return strings[Math.floor(next() * strings.length)];
        if (leaf < 0.8) return next() < 0.5;
        if (leaf < 0.9) return null;
        return undefined;
      }
      if (pick < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--)
        object[keys[Math.floor(next() * keys.length)]!] = value(next, depth + 1);
      return object;
    }

    it('writes the same content and attrs as canonicalJson for random attrs, key orders and values', function () {
      const next = random(24);
      for (let round = 0; round < 5000; round++) {
        const attrs = value(next, 0);
        const facts: ParsedEvent = {
          ...event,
          attrs:
            typeof attrs === 'object' && attrs !== null && !Array.isArray(attrs)
              ? (attrs as Record<string, unknown>)
              : { attrs },
        };
        const attrsJson = canonicalJson(facts.attrs);
        assert.deepEqual(
          contentAndAttrs(facts),
          { content: canonicalEventContent(facts, attrsJson), attrsJson },
          attrsJson,
        );
      }
    });

    it("takes canonicalJson's way for values JSON.stringify would write otherwise", function () {
      const proto: Record<string, unknown> = { z: 1 };
      Object.defineProperty(proto, '__proto__', { value: 'x', enumerable: true });
      const odd: Record<string, unknown>[] = [
        { d: new Date(0) },
        { b: 1, ['__proto__']: 2 },
        proto,
        { '10': 1, '9': 2, a: 3 },
      ];
      for (const attrs of odd) {
        const facts = { ...event, attrs };
        const attrsJson = canonicalJson(attrs);
        const expected = { content: canonicalEventContent(facts, attrsJson), attrsJson };
        assert.deepEqual(contentAndAttrs(facts), expected, attrsJson);
      }
      for (const attrs of [{ b: 1, a: NaN }, { n: Infinity }, { big: 1n }]) {
        assert.throws(() => canonicalJson(attrs));
        assert.throws(() => canonicalContent({ ...event, attrs }));
      }
    });

    it('writes the content of every sample export as canonicalJson does', function () {
      for (const name of [
        'native-ebpf-events.jsonl',
        'tetragon-docs-events.jsonl',
        'falco-risk-events.jsonl',
        'llm-causal-events.jsonl',
      ]) {
        for (const parsed of parseNdjson(readFileSync(join(packageRoot, 'test', 'fixtures', name)), 'auto', 1)
          .events) {
          const attrsJson = canonicalJson(parsed.attrs);
          assert.deepEqual(
            contentAndAttrs(parsed),
            { content: canonicalEventContent(parsed, attrsJson), attrsJson },
            name,
          );
        }
      }
    });
  });
});
