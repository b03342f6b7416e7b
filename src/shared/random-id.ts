/** Fresh identifiers: a prefix and 20 base32 characters (100 random bits), e.g. `bnd_…`, `run_…`. */
import { randomBytes } from 'node:crypto';

const base32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A fresh id: `prefix` and 20 base32 characters. */
export function randomId(prefix: string): string {
  const bytes = randomBytes(20);
  let id = prefix;
  // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform
  for (const byte of bytes) id += base32[byte & 31];
  return id;
}
