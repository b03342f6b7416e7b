import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  batchHashing,
  merkleRoots,
  merkleRootsJs,
  sha256Lines,
  sha256LinesJs,
} from '../../src/provenance/batch-hash.js';
import { hashAddonPath } from '../../src/provenance/hash-addon.js';
import { merkleRoot } from '../../src/provenance/merkle.js';

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** Lines of every length from 0 to 200 bytes, with UTF-8, NULs and bytes of every value. */
function lines(): Buffer[] {
  return Array.from({ length: 201 }, (_v, n) =>
    Buffer.from(Array.from({ length: n }, (_w, i) => (i * 37 + n) % 256).map((b) => (b === 10 ? 11 : b))),
  );
}

describe('batch hashing', function () {
  for (const [name, hashLines, roots] of [
    ['loaded', sha256Lines, merkleRoots],
    ['javascript', sha256LinesJs, merkleRootsJs],
  ] as const) {
    it(`hashes each line of a slice as sha256 of its bytes (${name})`, function () {
      const input = Buffer.concat(lines().flatMap((line) => [line, Buffer.from('\n')]));
      const digests = hashLines(input);
      assert.equal(digests.length, 201 * 32);
      lines().forEach((line, i) =>
        assert.deepEqual(digests.subarray(i * 32, i * 32 + 32), sha256(line), `line ${i}`),
      );
      assert.equal(
        hashLines(Buffer.from('no newline')).length,
        0,
        'bytes after the last newline are no line',
      );
      assert.equal(hashLines(new Uint8Array(0)).length, 0);
    });

    it(`builds each group's Merkle root as merkle.ts does, an empty group included (${name})`, function () {
      const leaves = lines().map(sha256);
      const groups = new Uint32Array(leaves.map((_leaf, i) => (i % 7 === 3 ? 0 : i % 5)));
      const built = roots(Buffer.concat(leaves), groups, 6);
      for (let group = 0; group < 6; group++) {
        const members = leaves
          .filter((_leaf, i) => groups[i] === group)
          .map((leaf) => `sha256:${leaf.toString('hex')}`);
        assert.equal(
          `sha256:${built.toString('hex', group * 32, group * 32 + 32)}`,
          merkleRoot(members),
          `group ${group}`,
        );
      }
      assert.throws(() => roots(Buffer.alloc(64), new Uint32Array([0]), 1), RangeError);
      assert.throws(() => roots(Buffer.alloc(32), new Uint32Array([3]), 1), RangeError);
    });
  }

  it('uses the native addon wherever .ci/setup built it', function () {
    if (!existsSync(hashAddonPath)) this.skip(); // not built here: the JavaScript functions answer alike
    assert.equal(batchHashing, 'native');
  });
});
