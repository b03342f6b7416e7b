/**
 * Merkle root over event hashes (RFC 6962 shape: leaves and nodes hashed with distinct prefixes so
 * a leaf can never pass for a node). A batch's root is what a later provenance object signs.
 */
import { createHash } from 'node:crypto';

const leafPrefix = Buffer.from([0]);
const nodePrefix = Buffer.from([1]);

/** Root of `sha256:<hex>` hashes in order, as `sha256:<hex>`; the empty tree hashes the empty string. */
export function merkleRoot(hashes: readonly string[]): string {
  if (hashes.length === 0) return 'sha256:' + createHash('sha256').digest('hex');
  let level: Buffer[] = hashes.map((hash) =>
    createHash('sha256')
      .update(leafPrefix)
      .update(Buffer.from(hash.slice(7), 'hex'))
      .digest(),
  );
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      // an odd node is carried up unchanged, as in RFC 6962
      next.push(
        right === undefined
          ? left
          : createHash('sha256').update(nodePrefix).update(left).update(right).digest(),
      );
    }
    level = next;
  }
  return 'sha256:' + level[0]!.toString('hex');
}
