/**
 * The connect mark (bpf/connect-mark.bpf.c): the kernel binds each TCP connect a bound process
 * makes to the daemon's HTTP port to the source address 127.0.0.2, so the daemon can tell a request
 * of a process a binding covers (an agent's, a watched or recorded command's) by its remote address
 * alone (src/daemon/watched-callers.ts). This file says where the daemon listens in the kernel's
 * words, and whether the mark is on.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { endianness } from 'node:os';
import type { NativeMarkTarget } from './binding.js';

/** The source address of a marked connection: must match bpf/lib/connect-mark.h: MARK_SOURCE_IP4. */
export const markSourceAddress = '127.0.0.2';

/** health's view of the mark: on or not (and why not), and what the kernel did with it. */
export interface ConnectMarkReport {
  active: boolean;
  /** Why it is off: requests of bound processes then look like anyone's. Null when active. */
  why: string | null;
  address: typeof markSourceAddress;
  /** Connects the kernel marked, and refused (a socket bound already, IPv6 loopback to an IPv6 listener). */
  marked: number;
  refused: number;
}

/** A 4-byte network-order value as the kernel reads it from its map: in this host's byte order. */
function kernelWord(bytes: readonly number[]): number {
  const buffer = Buffer.from(bytes);
  return endianness() === 'LE' ? buffer.readUInt32LE(0) : buffer.readUInt32BE(0);
}

/** The 16 bytes of an IPv6 literal. */
function ip6Bytes(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string | undefined): string[] =>
    part === undefined || part === '' ? [] : part.split(':');
  const left = groups(head);
  const right = groups(tail);
  const words = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return words.flatMap((word) => {
    const value = Number.parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * The listener `host`:`port` in the kernel's words. A host that is no literal (a name) is taken as
 * loopback only, on both families: an IPv6 connect to it is refused, never left unmarked.
 */
export function markTargetOf(host: string, port: number): NativeMarkTarget {
  const target: NativeMarkTarget = {
    port: kernelWord([port >> 8, port & 0xff, 0, 0]),
    ip4: 0,
    ip6: [0, 0, 0, 0],
    listensIp6: true,
  };
  if (isIPv4(host)) return { ...target, ip4: kernelWord(host.split('.').map(Number)), listensIp6: false };
  const literal = host.replace(/^\[|\]$/g, '');
  if (!isIPv6(literal) || literal.includes('.')) return target;
  const bytes = ip6Bytes(literal);
  const ip6 = [0, 4, 8, 12].map((at) => kernelWord(bytes.slice(at, at + 4)));
  return { ...target, ip6: ip6 as NativeMarkTarget['ip6'] };
}
