/**
 * Values a hostile or careless client sends in query parameters and headers: text with control
 * characters, bad percent-encoding and invalid UTF-8, numbers that are not integers or are out of
 * range, cursors that were forged, cut or moved to another filter, and tokens that are wrong.
 * Query values come back already encoded for the request target (or deliberately not).
 */
import type { Rng } from './rng.js';
import { fromAlphabet } from './schema-values.js';

/** A query value, encoded as it goes in the request target. */
export function hostileQueryText(rng: Rng): string {
  switch (rng.int(12)) {
    case 0:
      return '';
    case 1: // control characters, encoded
      return rng.pick(['%00', '%0a', '%0d', '%0d%0a', '%1b%5b31m', '%7f', '%c2%80', '%e2%80%a8', 'a%00b']);
    case 2: // invalid UTF-8 and overlong forms, encoded
      return rng.pick(['%ff', '%c0%80', '%ed%a0%80', '%f4%90%80%80', 'run%fe%ff', '%e2%82']);
    case 3: // malformed percent-encoding
      return rng.pick(['%', '%z', '%%41', '%4', 'a%2', '%u0041', '%%']);
    case 4: // raw bytes beyond ASCII, unencoded (sent as latin1 bytes)
      return rng.pick(['\u00ff\u00fe', 'r\u00e9sum\u00e9', '\u0080\u0081', '\u00c3\u00a9']);
    case 5: // what a query language or a shell would read
      return encodeURIComponent(
        rng.pick(["' OR 1=1 --", '%_%', '*', '\\', '$(id)', '`id`', '{{7*7}}', 'NULL', 'null']),
      );
    case 6: // paths and traversal
      return encodeURIComponent(
        rng.pick(['../../etc/passwd', '/etc/shadow', 'C:\\Windows', '//', '.', '..']),
      );
    case 7: // long
      return fromAlphabet(rng, 'abc', rng.pick([257, 4097, 65_537]));
    case 8: // Unicode that survives a naive check
      return encodeURIComponent(rng.pick(['\u202erun', '\ufeffrun', 'ru\u200bn', '\u{1f600}', 'ﬁ', 'K']));
    case 9:
      return encodeURIComponent(rng.pick(['true', 'false', '[]', '{}', '0', '-1']));
    case 10: // separators inside a value
      return rng.pick(['a&run=b', 'a=b', 'a;b', 'a#b', 'a?b', 'a+b', 'a%26b']);
    default:
      return encodeURIComponent(fromAlphabet(rng, 'xyz\t "<>', rng.between(1, 12)));
  }
}

/** A value for an integer parameter that is not a valid integer for it. */
export function hostileInteger(rng: Rng): string {
  return rng.pick([
    '-1',
    '0',
    '1001',
    '1.5',
    '1e3',
    '0x10',
    '%201',
    '1%20',
    '+1',
    '01',
    '9007199254740993',
    '1e309',
    'NaN',
    'Infinity',
    '',
    '4294967296',
    '-0',
    '%EF%BC%91', // a fullwidth 1
  ]);
}

/** A cursor that the daemon never issued, or issued for another query, or cut. */
export function hostileCursor(rng: Rng, real: readonly string[]): string {
  const genuine = real.length > 0 ? rng.pick(real) : 'AAAA';
  switch (rng.int(8)) {
    case 0:
      return genuine.slice(0, rng.int(genuine.length)); // cut
    case 1: {
      const at = rng.int(genuine.length);
      const flipped = genuine[at] === 'A' ? 'B' : 'A';
      return genuine.slice(0, at) + flipped + genuine.slice(at + 1); // one character changed
    }
    case 2:
      return genuine + '=='; // padded
    case 3:
      return encodeURIComponent(
        Buffer.from(JSON.stringify({ offset: -1, run: "' OR 1=1" })).toString('base64'),
      );
    case 4:
      return fromAlphabet(
        rng,
        'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
        rng.between(1, 400),
      );
    case 5:
      return encodeURIComponent('/+=' + genuine); // base64 rather than base64url
    case 6:
      return 'A'.repeat(rng.pick([4096, 70_000]));
    default:
      return genuine; // a genuine cursor, likely from another filter or run than this request's
  }
}

/** An Authorization header value that must be refused (401), or null for none at all. */
export function hostileAuthorization(rng: Rng, token: string): string | null {
  return rng.pick([
    null,
    '',
    'Bearer',
    'Bearer ',
    `Bearer ${token}x`,
    `Bearer ${token.slice(0, -1)}`,
    `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
    `Bearer ${'A'.repeat(10_000)}`,
    `Token ${token}`,
    `Bearer ${token.toUpperCase()}`,
    'Bearer \u00ff\u00fe',
  ]);
}
