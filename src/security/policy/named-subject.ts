/**
 * What a proposed action names, as the policy judges it: each program run, path and host as a
 * `PolicySubject`, with words that say which it is ("reads /etc/shadow"), and what could not be
 * read without running it (a variable, a glob, a substitution's output).
 */
import { posix } from 'node:path';
import type { PolicySubject } from './policy.js';

/** One subject and the words that name it in a decision's reason. */
export interface NamedSubject {
  subject: PolicySubject;
  /** `runs cat`, `reads /etc/shadow`, `writes /work/stolen.txt`, `reaches 169.254.169.254:80`. */
  names: string;
  /** The action exactly as its caller gave it (the gate's): its decision keeps the rule's own reason. */
  given?: boolean;
}

/** The subjects of an action, and what of it could not be read statically (empty when all could). */
export interface SubjectReading {
  subjects: NamedSubject[];
  unreadable: string[];
}

/** Where relative paths and `~` resolve: the tool call's working directory and the user's home. */
export interface SubjectPlace {
  cwd?: string | null;
  home?: string | null;
}

/** Most subjects kept for one action; past it the reading says so. */
export const maxSubjects = 512;
/** Most notes of what could not be read. */
const maxUnreadable = 32;

const fileVerbs: Record<string, string> = {
  file_open: 'reads',
  file_write: 'writes',
  file_unlink: 'deletes',
  file_rename: 'moves',
};

/** Collects an action's subjects once each, bounded. */
export class SubjectList {
  private readonly seen = new Set<string>();
  readonly subjects: NamedSubject[] = [];
  readonly unreadable: string[] = [];

  constructor(readonly place: SubjectPlace) {}

  add(subject: PolicySubject, names: string, given = false): void {
    if (this.seen.has(names)) return;
    if (this.subjects.length >= maxSubjects) {
      this.note(`names more than ${maxSubjects} programs, paths and hosts: judged the first ${maxSubjects}`);
      return;
    }
    this.seen.add(names);
    this.subjects.push(given ? { subject, names, given } : { subject, names });
  }

  note(why: string): void {
    if (this.unreadable.length < maxUnreadable && !this.unreadable.includes(why)) this.unreadable.push(why);
  }

  /** A file the action touches (`type`: file_open, file_write, file_unlink, file_rename). */
  addPath(type: string, raw: string): void {
    const path = resolvePath(raw, this.place);
    if (path === null) {
      this.note(`${raw.slice(0, 80)}: another user's home`);
      return;
    }
    this.add({ event_type: type, path }, `${fileVerbs[type] ?? 'names'} ${path}`);
  }

  /** A host the action reaches: an address is judged as a connection to it; a name only named. */
  addHost(host: Host): void {
    const where = host.port === null ? host.host : `${host.host}:${host.port}`;
    this.add(
      { event_type: 'network_connect', dst_ip: host.isAddress ? host.host : null, dst_port: host.port },
      `reaches ${where}`,
    );
  }

  reading(): SubjectReading {
    return { subjects: this.subjects, unreadable: this.unreadable };
  }
}

/** `~` and `~/x` against the home, a relative path against the cwd; null for `~user`. */
export function resolvePath(raw: string, place: SubjectPlace): string | null {
  let path = raw;
  if (path === '~' || path.startsWith('~/')) {
    const home = place.home ?? null;
    path = home === null ? path : home + path.slice(1);
  } else if (path.startsWith('~')) {
    return null;
  }
  const cwd = place.cwd ?? null;
  if (!path.startsWith('/') && !path.startsWith('~') && cwd !== null && cwd.startsWith('/'))
    path = posix.join(cwd, path);
  return path.startsWith('/') ? posix.normalize(path) : path;
}

/**
 * True for a word that names a file: it has a `/`, starts with `~` or `.`, or is one name with an
 * extension (`notes.md`, `shadow.txt`). A bare word (`hello`, `main`) is not taken for a file, nor
 * a word with spaces unless it starts as a path does (a message, an `sh -c` string): judging every word as a path in the cwd would make
 * `git commit -m "fix token"` a secret.
 */
export function looksLikePath(word: string): boolean {
  if (word === '' || word === '-' || word.includes('\n') || word.includes('\0')) return false;
  if (word.includes(' ') || word.includes('\t'))
    return word.startsWith('/') || word.startsWith('~/') || word.startsWith('./'); // "my dir/x", not "cat /x"
  if (word.includes('/') || word.startsWith('~') || word.startsWith('.')) return true;
  const dot = word.lastIndexOf('.');
  return dot > 0 && dot < word.length - 1 && !word.startsWith('-');
}

/** A host named by a word: its name or address, and port when given. */
export interface Host {
  host: string;
  port: number | null;
  isAddress: boolean;
}

const ipv4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;
const hostName = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$/;
const schemePorts: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21, ssh: 22 };

/**
 * The host a word names: a URL's (`https://x.io/a`), `user@host` or `user@host:path` (ssh, scp,
 * git), `host:port`, or an address alone. Null when the word names none.
 */
export function hostOf(word: string): Host | null {
  if (word.length > 2048) return null;
  const scheme = word.indexOf('://');
  if (scheme > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(word.slice(0, scheme))) {
    const rest = word.slice(scheme + 3);
    let authority = rest.slice(0, firstOf(rest, '/?#'));
    authority = authority.slice(authority.lastIndexOf('@') + 1);
    const portOf = schemePorts[word.slice(0, scheme).toLowerCase()] ?? null;
    return hostPort(authority, portOf, true);
  }
  const at = word.indexOf('@');
  if (at > 0 && !word.slice(0, at).includes('/')) {
    const after = word.slice(at + 1);
    const colon = after.indexOf(':');
    return hostPort(colon < 0 ? after : after.slice(0, colon), null, true);
  }
  return hostPort(word, null, false);
}

function firstOf(text: string, stops: string): number {
  for (let i = 0; i < text.length; i++) if (stops.includes(text[i]!)) return i;
  return text.length;
}

/** `host`, `host:port`, `[v6]:port` or an address; a bare name only when `nameAlone` (from a URL). */
function hostPort(text: string, defaultPort: number | null, nameAlone: boolean): Host | null {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return null;
    const port = text.startsWith(':', close + 1) ? portNumber(text.slice(close + 2)) : defaultPort;
    return { host: text.slice(1, close), port, isAddress: true };
  }
  const colon = text.lastIndexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  const port = colon < 0 ? defaultPort : portNumber(text.slice(colon + 1));
  if (colon >= 0 && port === null) return null;
  if (ipv4.test(name)) return { host: name, port, isAddress: true };
  if ((hostName.test(name) || name === 'localhost') && (nameAlone || colon >= 0))
    return { host: name.toLowerCase(), port, isAddress: false };
  return null;
}

function portNumber(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port <= 65535 ? port : null;
}
