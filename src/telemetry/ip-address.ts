/**
 * IP address literals parsed by hand with charCode scans: classification and the Falco parser test
 * every destination, and a regex or `node:net` call per event costs more than the scan.
 */

/**
 * The IPv4 dotted quad in `text[start, end)` as an unsigned 32-bit number, or -1. Leading zeros are
 * refused (as Go's net.ParseIP does): `010.0.0.1` is 8.0.0.1 to inet_aton but 10.0.0.1 to a reader.
 */
export function parseIpv4(text: string, start = 0, end = text.length): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code === 46) {
      // '.'
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
      continue;
    }
    const digit = code - 48;
    if (digit < 0 || digit > 9) return -1;
    if (digits > 0 && octet === 0) return -1; // leading zero
    octet = octet * 10 + digit;
    if (octet > 255) return -1;
    digits++;
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/**
 * The eight 16-bit groups of an IPv6 literal (with `::` and an optional dotted IPv4 tail), or undefined.
 * Zone ids (`%eth0`) and brackets are not part of the literal and are refused.
 */
export function parseIpv6(text: string): Uint16Array | undefined {
  const end = text.length;
  if (end < 2 || end > 45) return undefined;
  const groups = new Uint16Array(8);
  let count = 0;
  let gapAt = -1; // index in groups where `::` stands
  let at = 0;
  if (text.charCodeAt(0) === 58) {
    // a leading ':' must be half of '::'
    if (text.charCodeAt(1) !== 58) return undefined;
    gapAt = 0;
    at = 2;
    if (at === end) return groups; // "::"
  }
  while (at < end) {
    if (count === 8) return undefined;
    let value = 0;
    let digits = 0;
    const groupStart = at;
    while (at < end) {
      const hex = hexValue(text.charCodeAt(at));
      if (hex < 0) break;
      value = value * 16 + hex;
      if (++digits > 4) return undefined;
      at++;
    }
    if (at < end && text.charCodeAt(at) === 46) {
      // '.': the last 32 bits written as an IPv4 dotted quad
      const v4 = parseIpv4(text, groupStart, end);
      if (v4 < 0 || count > 6) return undefined;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      at = end;
      break;
    }
    if (digits === 0) return undefined;
    groups[count++] = value;
    if (at === end) break;
    if (text.charCodeAt(at) !== 58) return undefined;
    at++;
    if (text.charCodeAt(at) === 58) {
      if (gapAt >= 0) return undefined; // a second '::'
      gapAt = count;
      at++;
      if (at === end) break;
    } else if (at === end) {
      return undefined; // trailing single ':'
    }
  }
  if (gapAt < 0) return count === 8 ? groups : undefined;
  if (count === 8) return undefined; // '::' must stand for at least one group
  const tail = count - gapAt;
  groups.copyWithin(8 - tail, gapAt, count);
  groups.fill(0, gapAt, 8 - tail);
  return groups;
}

/** True when `text` is an IPv4 dotted quad or an IPv6 literal (no brackets, no zone, no port). */
export function isIpAddress(text: string): boolean {
  return parseIpv4(text) >= 0 || (text.indexOf(':') !== -1 && parseIpv6(text) !== undefined);
}
