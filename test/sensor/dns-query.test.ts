import assert from 'node:assert/strict';
import { readDnsQuestion } from '../../src/sensor/dns-query.js';

/** A query as a resolver writes it: header (id, RD, one question), the name's labels, type, class IN. */
function query(
  name: string,
  type: number,
  header = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0],
): Uint8Array {
  const labels = name.split('.').flatMap((label) => [label.length, ...Buffer.from(label)]);
  return new Uint8Array([...header, ...labels, 0, type >> 8, type & 0xff, 0, 1]);
}

describe('readDnsQuestion', function () {
  it('reads the name and type of a query', function () {
    assert.deepEqual(readDnsQuestion(query('api.example.com', 1)), { name: 'api.example.com', type: 'A' });
    assert.deepEqual(readDnsQuestion(query('example.com', 28)), { name: 'example.com', type: 'AAAA' });
    assert.deepEqual(readDnsQuestion(query('example.com', 65)), { name: 'example.com', type: 'HTTPS' });
  });

  it('names a type without a mnemonic as RFC 3597 does', function () {
    assert.deepEqual(readDnsQuestion(query('example.com', 99)), { name: 'example.com', type: 'TYPE99' });
  });

  it('says why it cannot read a payload instead of guessing', function () {
    const full = query('example.com', 1);
    assert.equal(readDnsQuestion(full.subarray(0, 11)), 'shorter than a DNS header');
    assert.equal(readDnsQuestion(full.subarray(0, 16)), 'the name is cut');
    assert.equal(readDnsQuestion(full.subarray(0, full.length - 4)), 'the type is cut');
    assert.equal(
      readDnsQuestion(query('example.com', 1, [0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0])),
      'a response, not a query',
    );
    assert.equal(
      readDnsQuestion(query('example.com', 1, [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
      'no question',
    );
    const pointer = new Uint8Array([...full.subarray(0, 12), 0xc0, 0x0c, 0, 1, 0, 1]);
    assert.equal(readDnsQuestion(pointer), 'a compressed or malformed name');
  });
});
