/** The question of a DNS query (RFC 1035 4.1): the name and type a resolver asked for. */

const typeNames = new Map<number, string>([
  [1, 'A'],
  [2, 'NS'],
  [5, 'CNAME'],
  [6, 'SOA'],
  [12, 'PTR'],
  [15, 'MX'],
  [16, 'TXT'],
  [28, 'AAAA'],
  [33, 'SRV'],
  [64, 'SVCB'],
  [65, 'HTTPS'],
  [255, 'ANY'],
]);

export interface DnsQuestion {
  /** The name, dotted, without the root's trailing dot. */
  name: string;
  /** The type's mnemonic, or TYPE<n> (RFC 3597) for one without. */
  type: string;
}

/** The first question of a query, or why it cannot be read (a cut or malformed payload). */
export function readDnsQuestion(payload: Uint8Array): DnsQuestion | string {
  if (payload.length < 12) return 'shorter than a DNS header';
  if ((payload[2]! & 0x80) !== 0) return 'a response, not a query';
  if (((payload[4]! << 8) | payload[5]!) === 0) return 'no question';
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    if (at >= payload.length) return 'the name is cut';
    const length = payload[at]!;
    if (length === 0) break;
    if (length > 63) return 'a compressed or malformed name';
    if (at + 1 + length > payload.length) return 'the name is cut';
    labels.push(String.fromCharCode(...payload.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  if (at + 3 > payload.length) return 'the type is cut';
  const code = (payload[at + 1]! << 8) | payload[at + 2]!;
  return { name: labels.join('.'), type: typeNames.get(code) ?? `TYPE${code}` };
}
