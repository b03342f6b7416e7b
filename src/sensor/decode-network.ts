/** Decoders of the network records (bpf/network.bpf.c): connect. */
import type { ParsedEvent } from '../telemetry/event.js';
import type { RecordView } from './record-view.js';
import { layouts } from './records.js';
import { syscallResult } from './syscall-result.js';

const connect = layouts.connect_event.fields;
const afInet = 2;
const afInet6 = 10;

/** A connect to an IPv4 or IPv6 destination, and what the kernel answered. */
export function decodeConnect(record: RecordView, event: ParsedEvent): string | undefined {
  if (!record.holds(connect.addr, 16)) return `connect record of ${record.size} bytes is too short`;
  const family = record.u16(connect.family);
  const address = record.raw(connect.addr, 16);
  if (family === afInet) event.attrs.dst_ip = address.subarray(0, 4).join('.');
  else if (family === afInet6) event.attrs.dst_ip = ipv6Text(address);
  else return `connect record of address family ${family}`;
  event.type = 'network_connect';
  event.attrs.dst_port = record.u16(connect.port);
  syscallResult(event.attrs, record.i32(connect.result));
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
