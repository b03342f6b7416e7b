/**
 * RFC 3339 date-times to and from Unix nanoseconds, by hand: the ingest hot path parses one per event,
 * and `Date` would both allocate and drop everything below the millisecond.
 */

const nanosPerSecond = 1_000_000_000n;
const secondsPerDay = 86_400;

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `days_from_civil`): exact integer
 * arithmetic, valid for every year this module accepts.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

// What formatRfc3339Nanos can write: years 0000..9999 UTC.
const minSeconds = daysFromCivil(0, 1, 1) * secondsPerDay;
const maxSeconds = daysFromCivil(10_000, 1, 1) * secondsPerDay - 1;

// What the store holds: instants are signed 64-bit nanoseconds (about 1677-09-21 to 2262-04-11), and
// window buckets round down from them. parseRfc3339 accepts the whole years inside: 1678 to 2261 UTC.
const minStoredSeconds = daysFromCivil(1678, 1, 1) * secondsPerDay;
const maxStoredSeconds = daysFromCivil(2262, 1, 1) * secondsPerDay - 1;

/** The first and last instant provd stores (1678-01-01T00:00:00Z, 2261-12-31T23:59:59.999999999Z), Unix ns. */
export const minStoredNs = BigInt(minStoredSeconds) * nanosPerSecond;
export const maxStoredNs = BigInt(maxStoredSeconds) * nanosPerSecond + nanosPerSecond - 1n;

/** True when the store can hold the instant (see minStoredNs, maxStoredNs). */
export function isStoredInstant(ns: bigint): boolean {
  return ns >= minStoredNs && ns <= maxStoredNs;
}

// parseRfc3339's cache of the last whole second it converted (module state: one per worker thread)
let lastSeconds = Number.NaN;
let lastSecondNanos = 0n;

/** The value of the two ASCII digits at `at`, or -1 when either is not a digit. */
function twoDigits(text: string, at: number): number {
  const hi = text.charCodeAt(at) - 48;
  const lo = text.charCodeAt(at + 1) - 48;
  // written as a positive test so that NaN (past the end of the text) fails it too
  if (!(hi >= 0 && hi <= 9 && lo >= 0 && lo <= 9)) return -1;
  return hi * 10 + lo;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Unix nanoseconds of an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T`/`t`/space
 * separator, `Z`/`z`), or undefined when the text is not one or names an instant the store cannot
 * hold (outside 1678..2261 UTC). A fraction longer than 9 digits is refused rather than rounded: the
 * stored string must denote exactly the instant that is compared.
 */
export function parseRfc3339(text: string): bigint | undefined {
  if (typeof text !== 'string' || text.length < 20) return undefined;
  const century = twoDigits(text, 0);
  const yy = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 0 || yy < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || minute < 0) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return undefined; // '-'
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined; // ':'
  const separator = text.charCodeAt(10);
  if (separator !== 84 && separator !== 116 && separator !== 32) return undefined; // 'T' 't' ' '
  const year = century * 100 + yy;
  // Second 60 (a leap second) is refused: Unix time has no instant for it, and folding it onto the
  // next second would store a time the sensor never reported.
  if (day > daysInMonth(year, month) || hour > 23 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }

  let at = 19;
  let nanos = 0;
  if (text.charCodeAt(at) === 46) {
    // '.': 1..9 digits, scaled to nanoseconds
    const start = ++at;
    while (at < text.length) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      if (at - start === 9) return undefined;
      nanos = nanos * 10 + digit;
      at++;
    }
    const count = at - start;
    if (count === 0) return undefined;
    for (let i = count; i < 9; i++) nanos *= 10;
  }

  let offsetSeconds = 0;
  const zone = text.charCodeAt(at);
  if (zone === 90 || zone === 122) {
    // 'Z' 'z'
    at += 1;
  } else if (zone === 43 || zone === 45) {
    // '+' '-'
    const offsetHour = twoDigits(text, at + 1);
    const offsetMinute = twoDigits(text, at + 4);
    if (offsetHour < 0 || offsetHour > 23 || offsetMinute < 0 || offsetMinute > 59) return undefined;
    if (text.charCodeAt(at + 3) !== 58) return undefined;
    offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (zone === 43 ? 1 : -1);
    at += 6;
  } else {
    return undefined;
  }
  if (at !== text.length) return undefined;

  const seconds =
    daysFromCivil(year, month, day) * secondsPerDay + hour * 3600 + minute * 60 + second - offsetSeconds;
  if (seconds < minStoredSeconds || seconds > maxStoredSeconds) return undefined;
  // consecutive events mostly share their second: reuse its BigInt and allocate one per event at most
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastSecondNanos = BigInt(seconds) * nanosPerSecond;
  }
  return nanos === 0 ? lastSecondNanos : lastSecondNanos + BigInt(nanos);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/**
 * The last whole second formatRfc3339Nanos wrote: consecutive events mostly share their second
 * (a sensor batch is up to a second of them), so most calls write only the nine fraction digits.
 */
let prefixSecondNs = -1n;
let prefix = '';

/**
 * The UTC RFC 3339 form of Unix nanoseconds with exactly 9 fraction digits and `Z`, as responses
 * carry it. Throws a RangeError outside years 0000..9999 (parseRfc3339 yields far less).
 */
export function formatRfc3339Nanos(ns: bigint): string {
  const sinceSecond = ns - prefixSecondNs;
  if (prefixSecondNs >= 0n && sinceSecond >= 0n && sinceSecond < nanosPerSecond)
    return prefix + pad(Number(sinceSecond), 9) + 'Z';
  let wholeSeconds = ns / nanosPerSecond;
  let fraction = ns % nanosPerSecond;
  if (fraction < 0n) {
    fraction += nanosPerSecond;
    wholeSeconds -= 1n;
  }
  const seconds = Number(wholeSeconds);
  if (seconds < minSeconds || seconds > maxSeconds) {
    throw new RangeError(`failed to format ${ns} ns as RFC 3339: outside years 0000..9999`);
  }
  const text = formatFractionless(seconds) + '.';
  if (seconds >= 0) {
    prefixSecondNs = wholeSeconds * nanosPerSecond;
    prefix = text;
  }
  return text + pad(Number(fraction), 9) + 'Z';
}

/** `YYYY-MM-DDTHH:MM:SS` of Unix seconds, UTC. */
function formatFractionless(seconds: number): string {
  const days = Math.floor(seconds / secondsPerDay);
  const secondOfDay = seconds - days * secondsPerDay;
  // H. Hinnant's `civil_from_days`, the inverse of daysFromCivil
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return (
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(Math.floor(secondOfDay / 3600), 2)}:` +
    `${pad(Math.floor(secondOfDay / 60) % 60, 2)}:${pad(secondOfDay % 60, 2)}`
  );
}
