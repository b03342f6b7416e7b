import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { merkleRoot } from '../../src/provenance/merkle.js';

const leaf = (text: string): string => 'sha256:' + createHash('sha256').update(text).digest('hex');
const node = (left: string, right: string): string =>
  'sha256:' +
  createHash('sha256')
    .update(Buffer.from([1]))
    .update(Buffer.from(left.slice(7), 'hex'))
    .update(Buffer.from(right.slice(7), 'hex'))
    .digest('hex');

describe('merkleRoot', function () {
  const [a, b, c] = [leaf('a'), leaf('b'), leaf('c')];

  it('hashes the empty string for no leaves and is the leaf itself for one', function () {
    assert.equal(merkleRoot([]), leaf(''));
    assert.equal(merkleRoot([a]), a);
  });

  it('joins pairs with the 0x01 node prefix and carries an odd node up unchanged', function () {
    assert.equal(merkleRoot([a, b]), node(a, b));
    assert.equal(merkleRoot([a, b, c]), node(node(a, b), c));
  });

  it('depends on the order of the leaves', function () {
    assert.notEqual(merkleRoot([a, b]), merkleRoot([b, a]));
  });
});
