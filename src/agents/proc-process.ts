/**
 * What the kernel says about one live process, read from /proc: its parent, real uid, start time
 * (clock ticks after boot: with the pid, the identity of the process, so a reused pid is never
 * mistaken for the process that had it), command line, and which tool-call markers its environment
 * carries. Its argv and environment are what the process exec'd with, so a process can set them
 * to anything: they may only ever count against it, never for it (hook-caller-trust.ts).
 */
import { readFileSync } from 'node:fs';

/** A process's kernel identity: a pid names one process only together with its start time. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/PID/stat: when it was forked, in clock ticks after boot. */
  startTicks: bigint;
}

/** One process as /proc showed it. */
export interface ProcProcess extends ProcessIdentity {
  ppid: number;
  /** Real uid (/proc/PID/status `Uid:`, first field). */
  uid: number;
  argv: string[];
  /** Environment variables present that only an agent's tool-call processes get (CODEX_TOOL_CALL_ID). */
  toolCallMarkers: string[];
}

/** Variables an agent puts in a tool call's environment and never in a hook's (docs/development.md). */
const toolCallMarkerNames = ['CODEX_TOOL_CALL_ID'];

/** argv and environment are read only this far: a hook's are short, and an attacker's may not be. */
const maxReadBytes = 64 * 1024;

/** Reads a process, or null when it is gone or unreadable (it exited, or /proc hides it). */
export function readProcProcess(pid: number): ProcProcess | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // comm is in parentheses and may hold ')' or spaces: the fields after it start at the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is stat's field 3 (state): ppid is field 4, starttime field 22
    const ppid = Number(fields[1]);
    const start = fields[19];
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const uid = /\nUid:\t(\d+)/.exec(status)?.[1];
    if (start === undefined || uid === undefined || !Number.isInteger(ppid)) return null;
    return {
      pid,
      ppid,
      uid: Number(uid),
      startTicks: BigInt(start),
      argv: nulSeparated(readBounded(`/proc/${pid}/cmdline`)),
      toolCallMarkers: markersIn(readBounded(`/proc/${pid}/environ`)),
    };
  } catch {
    return null;
  }
}

/** True when `pid` still names the process `process` read (same start time). */
export function isSameProcess(process: ProcessIdentity): boolean {
  try {
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] === String(process.startTicks);
  } catch {
    return false;
  }
}

function readBounded(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > maxReadBytes ? text.slice(0, maxReadBytes) : text;
  } catch {
    // a zombie or a kernel thread has none; environ needs ptrace access
    return '';
  }
}

function nulSeparated(text: string): string[] {
  const parts = text.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function markersIn(environ: string): string[] {
  const present = new Set(nulSeparated(environ).map((entry) => entry.slice(0, entry.indexOf('='))));
  return toolCallMarkerNames.filter((name) => present.has(name));
}
