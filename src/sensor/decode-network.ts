/** Decoders of the network records (bpf/network.bpf.c): connect and DNS. */
import type { ParsedEvent } from '../model/event.js';
import { readDnsQuestion } from './dns-query.js';
import type { RecordView } from './record-view.js';
import { dnsBytes, layouts } from './records.js';
import { syscallResult } from './syscall-result.js';

const connect = layouts.connect_event.fields;
const dns = layouts.dns_event.fields;
const afInet = 2;
const afInet6 = 10;

/** A connect to an IPv4 or IPv6 destination, and what the kernel answered. */
export function decodeConnect(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(connect.addr, 16)) return `connect record of ${record.size} bytes is too short`;
  const address = addressText(record.u16(connect.family), record.raw(connect.addr, 16));
  if (address === undefined) return `connect record of address family ${record.u16(connect.family)}`;
  event.type = 'network_connect';
  event.attrs.dst_ip = address;
  event.attrs.dst_port = record.u16(connect.port);
  syscallResult(event.attrs, record.i32(connect.result));
  return undefined;
}

/** A DNS query sent over UDP to port 53: the name and type asked, and the resolver it went to. */
export function decodeDns(record: RecordView, event: ParsedEvent): string | undefined {
  const kept = Math.min(record.u32(dns.payload_size), dnsBytes);
  if (!record.holds(dns.payload, kept))
    return `dns record of ${record.size} bytes holds no payload of ${kept}`;
  const address = addressText(record.u16(dns.family), record.raw(dns.addr, 16));
  if (address === undefined) return `dns record of address family ${record.u16(dns.family)}`;
  event.type = 'dns_query';
  event.attrs.dst_ip = address;
  event.attrs.dst_port = record.u16(dns.port);
  event.attrs.bytes = record.u32(dns.query_size);
  const question = readDnsQuestion(record.raw(dns.payload, kept));
  if (typeof question === 'string') event.attrs.unreadable = question;
  else {
    event.attrs.query = question.name;
    event.attrs.query_type = question.type;
  }
  return undefined;
}

/** An address of `family` as text, from its 16 bytes (IPv4 in the first 4); undefined for another family. */
function addressText(family: number, bytes: Uint8Array): string | undefined {
  if (family === afInet) return bytes.subarray(0, 4).join('.');
  if (family === afInet6) return ipv6Text(bytes);
  return undefined;
}

/** RFC 5952 text of an IPv6 address: lower case, the longest run of zero groups as `::`. */
function ipv6Text(bytes: Uint8Array): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  if (groups.slice(0, 6).join() === '0,0,0,0,0,65535') return `::ffff:${bytes.subarray(12, 16).join('.')}`;
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const text = groups.map((group) => group.toString(16));
  if (best === -1) return text.join(':');
  return `${text.slice(0, best).join(':')}::${text.slice(best + bestLength).join(':')}`;
}
