import assert from 'node:assert/strict';
import { formatRfc3339Nanos, maxStoredNs, minStoredNs, parseRfc3339 } from '../../src/shared/rfc3339.js';

const second = 1_000_000_000n;
// 2026-01-01T00:00:00Z
const newYear2026 = 1_767_225_600n * second;

describe('rfc3339', function () {
  describe('parseRfc3339', function () {
    it('returns Unix nanoseconds when the time has whole seconds', function () {
      assert.equal(parseRfc3339('1970-01-01T00:00:00Z'), 0n);
      assert.equal(parseRfc3339('2026-01-01T00:00:00Z'), newYear2026);
      assert.equal(parseRfc3339('2026-01-01T00:00:01Z'), newYear2026 + second);
      assert.equal(parseRfc3339('1969-12-31T23:59:59Z'), -second);
    });

    it('scales the fraction to nanoseconds when it has 1 to 9 digits', function () {
      assert.equal(parseRfc3339('2026-01-01T00:00:00.1Z'), newYear2026 + 100_000_000n);
      assert.equal(parseRfc3339('2026-01-01T00:00:00.123Z'), newYear2026 + 123_000_000n);
      assert.equal(parseRfc3339('2026-01-01T00:00:00.000123Z'), newYear2026 + 123_000n);
      assert.equal(parseRfc3339('2026-01-01T00:00:00.123456789Z'), newYear2026 + 123_456_789n);
      assert.equal(parseRfc3339('2026-01-01T00:00:00.000000001Z'), newYear2026 + 1n);
    });

    it('gives the same instant as the Z form when the time has an offset', function () {
      const utc = parseRfc3339('2026-03-10T12:00:00.5Z');
      assert.equal(parseRfc3339('2026-03-10T17:30:00.5+05:30'), utc);
      assert.equal(parseRfc3339('2026-03-10T04:00:00.5-08:00'), utc);
      assert.equal(parseRfc3339('2026-03-10T12:00:00.5+00:00'), utc);
      assert.equal(parseRfc3339('2026-03-10T12:00:00.5-00:00'), utc);
      // an offset can move the date across a day and a year boundary
      assert.equal(parseRfc3339('2025-12-31T16:00:00-08:00'), newYear2026);
    });

    it('accepts lower-case t and z and a space separator', function () {
      assert.equal(parseRfc3339('2026-01-01t00:00:00z'), newYear2026);
      assert.equal(parseRfc3339('2026-01-01 00:00:00Z'), newYear2026);
    });

    it('accepts February 29 when the year is a leap year', function () {
      assert.equal(typeof parseRfc3339('2024-02-29T00:00:00Z'), 'bigint');
      assert.equal(typeof parseRfc3339('2000-02-29T00:00:00Z'), 'bigint');
    });

    it('returns undefined when the text is not an RFC 3339 date-time', function () {
      const invalid = [
        '',
        '2026-01-01T00:00:00', // no offset
        '2026-01-01T00:00:00.123', // no offset after a fraction
        '2026-01-01',
        '2023-02-29T00:00:00Z', // not a leap year
        '1900-02-29T00:00:00Z', // divisible by 100, not by 400
        '2026-04-31T00:00:00Z',
        '2026-00-10T00:00:00Z',
        '2026-13-10T00:00:00Z',
        '2026-01-00T00:00:00Z',
        '2026-01-32T00:00:00Z',
        '2026-01-01T24:00:00Z',
        '2026-01-01T23:60:00Z',
        '2016-12-31T23:59:60Z', // a real leap second; Unix time has no instant for it
        '2026-01-01T00:00:00.1234567891Z', // 10 fraction digits
        '2026-01-01T00:00:00.Z', // a dot without digits
        '2026-01-01T00:00:00Zjunk',
        '2026-01-01T00:00:00Z ',
        ' 2026-01-01T00:00:00Z',
        '2026-01-01T00:00:00+0530', // offset without a colon
        '2026-01-01T00:00:00+05',
        '2026-01-01T00:00:00+24:00',
        '2026-01-01T00:00:00+05:60',
        '2026-01-01X00:00:00Z',
        '2026/01/01T00:00:00Z',
        '26-01-01T00:00:00Z',
        '2026-1-01T00:00:00Z',
        '+2026-01-01T00:00:00Z',
        '2026-01-01T00:00:00UTC',
        '１２３４-01-01T00:00:00Z', // full-width digits
        '1767225600',
      ];
      for (const text of invalid) assert.equal(parseRfc3339(text), undefined, text);
    });

    it('returns undefined when the instant lies outside years 1678..2261 UTC, which the store cannot hold', function () {
      const outside = [
        '1677-12-31T23:59:59.999999999Z',
        '1678-01-01T00:00:00+00:01', // 1677-12-31T23:59Z
        '2261-12-31T23:59:59-00:01', // 2262-01-01T00:00:59Z
        '2262-04-11T23:47:16.854775807Z', // the last instant of a signed 64-bit nanosecond count
        '3000-01-01T00:00:00Z',
        '0000-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999999999Z',
      ];
      for (const text of outside) assert.equal(parseRfc3339(text), undefined, text);
      assert.equal(parseRfc3339('1678-01-01T00:00:00Z'), minStoredNs);
      assert.equal(parseRfc3339('2261-12-31T23:59:59.999999999Z'), maxStoredNs);
      assert.ok(minStoredNs > -(2n ** 63n) && maxStoredNs < 2n ** 63n - 1n);
    });

    it('returns undefined when the value is not a string at all', function () {
      const values: unknown[] = [
        1_767_225_600,
        1_767_225_600n,
        null,
        undefined,
        {},
        ['2026-01-01T00:00:00Z'],
      ];
      for (const value of values) assert.equal(parseRfc3339(value as string), undefined, typeof value);
    });
  });

  describe('formatRfc3339Nanos', function () {
    it('writes UTC with exactly 9 fraction digits and Z', function () {
      assert.equal(formatRfc3339Nanos(0n), '1970-01-01T00:00:00.000000000Z');
      assert.equal(formatRfc3339Nanos(newYear2026 + 1n), '2026-01-01T00:00:00.000000001Z');
      assert.equal(formatRfc3339Nanos(-1n), '1969-12-31T23:59:59.999999999Z');
    });

    it('round-trips every instant parseRfc3339 returns', function () {
      const samples = [
        '2024-02-29T23:59:59.999999999Z',
        '2000-03-01T00:00:00.5Z',
        '1678-01-01T00:00:00Z',
        '2261-12-31T23:59:59.999999999Z',
        '2026-06-29T10:00:01+05:30',
        '1969-12-31T23:59:59.999999999Z',
      ];
      for (const text of samples) {
        const ns = parseRfc3339(text);
        assert.notEqual(ns, undefined, text);
        assert.equal(parseRfc3339(formatRfc3339Nanos(ns as bigint)), ns, text);
      }
      assert.equal(
        formatRfc3339Nanos(parseRfc3339('2026-06-29T10:00:01+05:30') as bigint),
        '2026-06-29T04:30:01.000000000Z',
      );
    });

    it('writes each instant of a sequence right whatever came before it (the second it reuses)', function () {
      // within one second, across its end, back into it, before 1970 and back: as Date writes them
      const instants = [
        newYear2026 + 999_999_999n,
        newYear2026 + 5n,
        newYear2026 + second,
        newYear2026 + second - 1n,
        newYear2026 + second * 86_400n + 7n,
        newYear2026,
        -1n,
        -second,
        0n,
        newYear2026 + 999_999_999n,
      ];
      for (const ns of instants) {
        const millis = ns >= 0n ? ns / 1_000_000n : (ns - 999_999n) / 1_000_000n;
        const wholeSecond = new Date(Number(millis)).toISOString().slice(0, 19);
        const fraction = String(((ns % second) + second) % second).padStart(9, '0');
        assert.equal(formatRfc3339Nanos(ns), `${wholeSecond}.${fraction}Z`, String(ns));
      }
    });

    it('throws a RangeError when the instant is outside years 0000..9999', function () {
      assert.throws(() => formatRfc3339Nanos(253_402_300_800n * second), RangeError);
      assert.throws(() => formatRfc3339Nanos(-62_167_219_201n * second), RangeError);
    });
  });
});
