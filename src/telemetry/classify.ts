/**
 * Classification (docs/contract.md "Runtime event record"): a read of a secret path becomes
 * `secret_path`, a connect to a cloud metadata address `metadata_ip`, to RFC 1918 space `private_cidr`.
 * The default policy keys its rules on these types, so they are decided once, at ingest.
 */
import type { EventType, ParsedEvent } from '../model/event.js';
import { parseIpv4, parseIpv6 } from './ip-address.js';
import { isSecretPath } from './secret-path.js';

/** Cloud instance metadata endpoints: AWS/GCP/Azure/OCI, AWS ECS task metadata, Alibaba Cloud, AWS IPv6. */
export const metadataAddresses = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'];

const metadataIpv4 = new Set<number>();
const metadataIpv6: Uint16Array[] = [];
for (const address of metadataAddresses) {
  const v4 = parseIpv4(address);
  if (v4 >= 0) metadataIpv4.add(v4);
  else metadataIpv6.push(parseIpv6(address) as Uint16Array);
}

/** RFC 1918 private IPv4 space: 10/8, 172.16/12, 192.168/16. */
function isPrivateIpv4(address: number): boolean {
  return address >>> 24 === 10 || address >>> 20 === 0xac1 || address >>> 16 === 0xc0a8;
}

function sameGroups(a: Uint16Array, b: Uint16Array): boolean {
  for (let i = 0; i < 8; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The IPv4 address an IPv6 literal maps (`::ffff:a.b.c.d`), as a dual-stack socket reports it; else -1. */
function mappedIpv4(groups: Uint16Array): number {
  for (let i = 0; i < 5; i++) if (groups[i] !== 0) return -1;
  if (groups[5] !== 0xffff) return -1;
  return (groups[6] ?? 0) * 65_536 + (groups[7] ?? 0);
}

/** The class of a destination address: `metadata_ip`, `private_cidr`, or undefined for any other. */
function classifyDestination(ip: string): EventType | undefined {
  let v4 = parseIpv4(ip);
  if (v4 < 0) {
    if (ip.indexOf(':') === -1) return undefined;
    const groups = parseIpv6(ip);
    if (groups === undefined) return undefined;
    for (const metadata of metadataIpv6) if (sameGroups(groups, metadata)) return 'metadata_ip';
    v4 = mappedIpv4(groups);
    if (v4 < 0) return undefined;
  }
  if (metadataIpv4.has(v4)) return 'metadata_ip';
  return isPrivateIpv4(v4) ? 'private_cidr' : undefined;
}

/**
 * Reclassifies an event in place: `file_open` or `file_read` of a secret path → `secret_path` (unless
 * it failed); `network_connect` to
 * a metadata address → `metadata_ip`, to RFC 1918 → `private_cidr`. A changed event keeps its parser's
 * type in `attrs.observed_type`. Writes, renames and unlinks are never reclassified: the contract's
 * `secret_path` is a sensitive read.
 */
export function classifyEvent(event: ParsedEvent): void {
  let type: EventType | undefined;
  if (event.type === 'file_open' || event.type === 'file_read') {
    // an open the kernel refused read nothing: it stays what it was, with `failed` in attrs
    if (event.attrs.failed === true) return;
    const path = event.attrs.path;
    if (typeof path === 'string' && isSecretPath(path)) type = 'secret_path';
  } else if (event.type === 'network_connect') {
    const ip = event.attrs.dst_ip;
    if (typeof ip === 'string') type = classifyDestination(ip);
  }
  if (type === undefined) return;
  event.attrs.observed_type = event.type;
  event.type = type;
}
