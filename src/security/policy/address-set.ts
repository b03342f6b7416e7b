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
    for (const word of words) if (mentionsAddressOf(word, this)) return true;
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
 * Whether one word of a command line names an address of `set`: the word split at what no address
 * holds (`/`, `@`, `=`, quotes...), each piece read as an IPv6 literal (brackets dropped), as an
 * IPv4 address in any form inet_aton accepts, or as `host:port`. Scanned in place: every gate
 * request and every judged exec reads each of its words here.
 */
function mentionsAddressOf(word: string, set: AddressSet): boolean {
  // every IPv4 form holds a digit and every IPv6 literal a colon: most words hold neither
  if (!mayHoldAddress(word)) return false;
  let start = 0;
  for (let at = 0; at <= word.length; at++) {
    if (at < word.length && isAddressChar(word.charCodeAt(at))) continue;
    if (at > start && pieceMentions(word.slice(start, at), set)) return true;
    start = at + 1;
  }
  return false;
}

/** One piece: an IPv6 literal, else each `:`-separated part that starts with a digit as inet_aton reads it. */
function pieceMentions(piece: string, set: AddressSet): boolean {
  if (piece.includes(':')) {
    const v6 = parseIpv6(piece);
    if (v6 !== undefined) return set.hasGroups(v6);
  }
  let start = 0;
  for (let at = 0; at <= piece.length; at++) {
    if (at < piece.length && piece.charCodeAt(at) !== colon) continue;
    const first = piece.charCodeAt(start);
    // inet_aton's forms all start with a digit
    if (at > start && first >= zero && first <= nine) {
      const v4 = inetAton(piece.slice(start, at));
      if (v4 >= 0 && set.hasGroups(mapped(v4))) return true;
    }
    start = at + 1;
  }
  return false;
}

const zero = 48;
const nine = 57;
const colon = 58;

function mayHoldAddress(word: string): boolean {
  for (let at = 0; at < word.length; at++) {
    const code = word.charCodeAt(at);
    if ((code >= zero && code <= nine) || code === colon) return true;
  }
  return false;
}

/** `[0-9A-Za-z.:]`: what an address in any form is written with. */
function isAddressChar(code: number): boolean {
  return (
    (code >= zero && code <= colon) || // 0-9 and ':'
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 46
  );
}

/**
 * An IPv4 address as inet_aton reads it: one to four parts, each decimal, octal (leading 0) or
 * hex (0x); the last part fills the remaining bytes. -1 for anything else.
 */
export function inetAton(text: string): number {
  const parts = text.split('.');
  if (parts.length > 4) return -1;
  let sum = 0;
  for (let index = 0; index < parts.length; index++) {
    const value = partValue(parts[index]!);
    if (value < 0) return -1;
    if (index === parts.length - 1) {
      // the last part fills the remaining bytes
      return value >= 2 ** (8 * (4 - index)) ? -1 : sum + value;
    }
    if (value > 255) return -1;
    sum += value * 2 ** (8 * (3 - index));
  }
  return -1; // not reached: split gives at least one part
}

/** One part of an inet_aton address: decimal, octal (leading 0) or hex (0x); -1 for anything else. */
function partValue(part: string): number {
  if (part === '') return -1;
  const first = part.charCodeAt(0);
  if (first !== zero) return digitsValue(part, 0, 10);
  const second = part.charCodeAt(1);
  if (second === 120 || second === 88) return part.length === 2 ? -1 : digitsValue(part, 2, 16); // 0x
  return digitsValue(part, 1, 8);
}

/** The value of `text` from `start` in `base` (8, 10 or 16); -1 when a character is no such digit. */
function digitsValue(text: string, start: number, base: number): number {
  let value = 0;
  for (let at = start; at < text.length; at++) {
    const code = text.charCodeAt(at);
    let digit = -1;
    if (code >= zero && code <= nine) digit = code - zero;
    else if (base === 16 && code >= 97 && code <= 102) digit = code - 87;
    else if (base === 16 && code >= 65 && code <= 70) digit = code - 55;
    if (digit < 0 || digit >= base) return -1;
    value = value * base + digit;
  }
  return value;
}
