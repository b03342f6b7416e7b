/**
 * The one short human line a timeline entry carries: who did what to what, from the record alone.
 * Values from the evidence (argv, paths, names) are shown as sent, shortened to `summaryMax`.
 */
import type { EventType } from '../../model/event.js';
import type { EventAttrs } from '../../telemetry/event-json.js';
import type {
  TimelineArtifact,
  TimelineBinding,
  TimelineFileEffect,
  TimelineToolCall,
} from './context-records.js';

/** Longest summary, in UTF-16 units: a line, not a record. */
export const summaryMax = 160;

/** Cuts a line to summaryMax, marking the cut with an ellipsis. */
function shorten(line: string): string {
  return line.length <= summaryMax ? line : line.slice(0, summaryMax - 1) + '…';
}

const text = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : null;

/** What an event acted on: argv, a destination, a DNS name, a path, bytes, an exit code. */
export function eventObject(attrs: EventAttrs): string {
  const argv = attrs['argv'];
  if (Array.isArray(argv) && argv.length > 0) return argv.map(String).join(' ');
  const ip = text(attrs['dst_ip']);
  if (ip !== null) {
    const port = text(attrs['dst_port']);
    return port === null ? ip : `${ip}:${port}`;
  }
  const path = text(attrs['path']);
  const moved = text(attrs['new_path']);
  if (path !== null) return moved === null ? path : `${path} -> ${moved}`;
  // the sensor could not read the caller's memory for it (src/sensor/decode-file.ts)
  if (attrs['path_unreadable'] === true) return '(path not readable by the sensor)';
  for (const [key, label] of [
    ['query', ''],
    ['exit_code', 'exit '],
    ['bytes', 'bytes '],
    ['target_pid', 'target pid '],
    ['target_uid', 'uid '],
    ['target_gid', 'gid '],
  ] as const) {
    const value = text(attrs[key]);
    if (value !== null) return label + value;
  }
  return '';
}

/** `curl[4242] execve curl http://169.254.169.254/`. */
export function eventSummary(
  type: EventType,
  comm: string | null,
  pid: number | null,
  attrs: EventAttrs,
): string {
  const actor = `${comm ?? '?'}[${pid ?? '?'}]`;
  const object = eventObject(attrs);
  return shorten(object === '' ? `${actor} ${type}` : `${actor} ${type} ${object}`);
}

/** `text; note`, the text cut so that the note stays whole; without a note, `text` shortened. */
function noted(text: string, note: string | null): string {
  if (note === null) return shorten(text);
  const tail = `; ${note}`;
  const room = summaryMax - tail.length;
  return shorten((text.length <= room ? text : text.slice(0, Math.max(0, room - 1)) + '…') + tail);
}

/**
 * `tool call tc-1: make test (failed, exit 2, 1520 ms)`, and `note` after it (what its file effects
 * left out, when they are incomplete).
 */
export function toolCallSummary(call: TimelineToolCall, note: string | null = null): string {
  const outcome = [
    call.status,
    call.exit_code === null ? null : `exit ${call.exit_code}`,
    call.signal,
    call.duration_ms === null ? null : `${Math.round(call.duration_ms)} ms`,
  ].filter((part) => part !== null);
  const command = [call.command, ...call.args].join(' ');
  return noted(`tool call ${call.tool_call_id}: ${command} (${outcome.join(', ')})`, note);
}

/** `binding of tool call tc-1 (control_plane, confidence 1) on cgroup_id 777`. */
export function bindingSummary(binding: TimelineBinding): string {
  const keys = (['process_id', 'cgroup_id', 'container_id', 'pid', 'root_pid'] as const)
    .filter((key) => binding[key] !== null)
    .map((key) => `${key} ${binding[key]}`);
  const source = `${binding.binding_source}, confidence ${binding.confidence}`;
  return shorten(`binding of tool call ${binding.tool_call_id} (${source}) on ${keys.join(', ')}`);
}

/** `created src/a.ts (120 bytes)`, and `note` after it (when its record's effects are incomplete). */
export function fileEffectSummary(effect: TimelineFileEffect, note: string | null = null): string {
  const what = effect.kind === 'symlink' ? 'symlink ' : '';
  return noted(`${effect.effect} ${what}${effect.path} (${effect.size} bytes)`, note);
}

/** `stdout of tool call tc-1: 120 bytes`. */
export function artifactSummary(artifact: TimelineArtifact): string {
  const cut = artifact.truncated ? `, first ${artifact.stored_bytes} stored` : '';
  return shorten(`${artifact.stream} of tool call ${artifact.tool_call_id}: ${artifact.size} bytes${cut}`);
}
