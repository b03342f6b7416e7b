/**
 * A time bound of a query string (`since`, `until`): an RFC 3339 instant, or a duration back from
 * now (`10m`: ten minutes ago), as `provd events --host --since 10m` sends it.
 */
import { isStoredInstant, parseRfc3339 } from './rfc3339.js';

const durationSyntax = /^([0-9]{1,9})(ms|s|m|h|d)$/;
const nanosPer: Record<string, bigint> = {
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
};

/** The rule a bound follows, for a 400's message and the OpenAPI document. */
export const instantParamRule = 'an RFC 3339 date-time or a duration back from now (e.g. 90s, 10m, 2h, 7d)';

/** Unix nanoseconds of `text` taken at `nowNs`, or undefined when it is neither form or out of the store's range. */
export function parseInstantParam(text: string, nowNs: bigint): bigint | undefined {
  const duration = durationSyntax.exec(text);
  if (duration === null) return parseRfc3339(text);
  const ns = nowNs - BigInt(duration[1]!) * nanosPer[duration[2]!]!;
  return isStoredInstant(ns) ? ns : undefined;
}
