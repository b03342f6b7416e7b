/** Bearer token check (RFC 6750) with a constant-time compare. */
import { createHash, timingSafeEqual } from 'node:crypto';

export type AuthResult = 'ok' | 'missing' | 'invalid';

const bearer = /^Bearer +([\x21-\x7e]+) *$/i;

/** Checks `Authorization` headers against the one configured token. */
export class BearerAuth {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = sha256(token);
  }

  /** Compares digests of equal length, so the time taken says nothing about the token. */
  check(authorization: string): AuthResult {
    if (authorization === '') return 'missing';
    const match = bearer.exec(authorization);
    if (!match?.[1]) return 'invalid';
    return timingSafeEqual(sha256(match[1]), this.digest) ? 'ok' : 'invalid';
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
