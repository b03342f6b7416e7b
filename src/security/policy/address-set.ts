/**
 * Sets of addresses and CIDR blocks, and the addresses a command line names. An address is
 * compared as a number, never as text: `::ffff:169.254.169.254` is 169.254.169.254, and so are
 * `2852039166`, `0xa9fea9fe` and `0251.0376.0251.0376` as curl or ping read them (inet_aton).
 */
import { parseIpv4, parseIpv6 } from '../../telemetry/ip-address.js';

interface Block {
  /** 128 bits: an IPv4 address or block is held as its IPv4-mapped IPv6 form. */
  groups: Uint16Array;
  bits: number;
}

export class AddressSet {
  private constructor(private readonly blocks: readonly Block[]) {}

  /** From addresses and CIDR blocks; throws, naming the entry, for one that is neither. */
  static parse(entries: readonly string[]): AddressSet {
    return new AddressSet(entries.map(parseBlock));
  }

  /** Whether the address `text` (IPv4, IPv6, IPv4-mapped IPv6) is in the set; false for a non-address. */
  has(text: string): boolean {
    const groups = AddressSet.read(text);
    return groups !== undefined && this.hasGroups(groups);
  }

  /** An address as the set compares it (128 bits, IPv4 mapped); undefined for what is not one. */
  static read(text: string): Uint16Array | undefined {
    return addressGroups(text.trim());
  }

  /** Whether the command line names an address of the set, in any of the forms a program accepts. */
  isMentionedIn(words: readonly string[]): boolean {
    for (const word of words)
      for (const groups of mentionedAddresses(word)) if (this.hasGroups(groups)) return true;
    return false;
  }

  /** Whether an address `read` gave is in the set. */
  hasGroups(groups: Uint16Array): boolean {
    return this.blocks.some((block) => inBlock(groups, block));
  }
}

/** An address or block (`10.0.0.0/8`, `fd00::/8`, `169.254.169.254`). */
function parseBlock(entry: string): Block {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const v4 = parseIpv4(address);
  const groups = v4 >= 0 ? mapped(v4) : address.includes(':') ? parseIpv6(address) : undefined;
  if (groups === undefined) throw new Error(`"${entry}" is not an IPv4 or IPv6 address or CIDR block`);
  const width = v4 >= 0 ? 32 : 128;
  let prefix = width;
  if (slash !== -1) {
    const length = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(length)) throw new Error(`"${entry}" has a prefix length that is not a number`);
    prefix = Number(length);
  }
  if (prefix > width) throw new Error(`"${entry}" has a prefix length past ${width}`);
  return { groups, bits: v4 >= 0 ? 96 + prefix : prefix };
}

function mapped(v4: number): Uint16Array {
  return Uint16Array.of(0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff);
}

/** An address as 128 bits (IPv4 mapped); undefined for what is not an address. */
function addressGroups(text: string): Uint16Array | undefined {
  const v4 = parseIpv4(text);
  if (v4 >= 0) return mapped(v4);
  return text.includes(':') ? parseIpv6(text) : undefined;
}

function inBlock(groups: Uint16Array, block: Block): boolean {
  let bits = block.bits;
  for (let group = 0; bits > 0; group++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[group]! & mask) !== (block.groups[group]! & mask)) return false;
  }
  return true;
}

/**
 * The addresses one word of a command line names: split at what no address holds (`/`, `@`, `=`,
 * quotes...), each piece read as an IPv6 literal (brackets dropped), as an IPv4 address in any form
 * inet_aton accepts, or as `host:port`.
 */
function* mentionedAddresses(word: string): Generator<Uint16Array> {
  // every IPv4 form holds a digit and every IPv6 literal a colon: most words hold neither
  if (!/[0-9:]/.test(word)) return;
  for (const piece of word.split(/[^0-9A-Za-z.:]+/)) {
    if (piece === '') continue;
    if (piece.includes(':')) {
      const v6 = parseIpv6(piece);
      if (v6 !== undefined) {
        yield v6;
        continue;
      }
    }
    for (const part of piece.split(':')) {
      const first = part.charCodeAt(0);
      if (!(first >= 48 && first <= 57)) continue; // inet_aton's forms all start with a digit
      const v4 = inetAton(part);
      if (v4 >= 0) yield mapped(v4);
    }
  }
}

/**
 * An IPv4 address as inet_aton reads it: one to four parts, each decimal, octal (leading 0) or
 * hex (0x); the last part fills the remaining bytes. -1 for anything else.
 */
export function inetAton(text: string): number {
  const parts = text.split('.');
  if (parts.length > 4) return -1;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]+$/.test(part)) value = parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = part.length === 1 ? 0 : parseInt(part.slice(1), 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = Number(part);
    else return -1;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((value) => value > 255)) return -1;
  if (last >= 2 ** (8 * (4 - values.length))) return -1;
  return values.reduce((sum, value, index) => sum + value * 2 ** (8 * (3 - index)), 0) + last;
}
