/**
 * What the policy is asked about a stored event: its type after classification and the attributes
 * its rules read. An exec is judged by the program it really ran (`path`), not by its argv[0],
 * which the caller chooses (`exec -a`).
 */
import type { PolicySubject } from './policy.js';

export function eventSubject(type: string, attrs: Readonly<Record<string, unknown>>): PolicySubject {
  const argv = Array.isArray(attrs['argv']) ? attrs['argv'].filter((arg) => typeof arg === 'string') : [];
  const path = typeof attrs['path'] === 'string' ? attrs['path'] : null;
  return {
    event_type: type,
    path,
    dst_ip: typeof attrs['dst_ip'] === 'string' ? attrs['dst_ip'] : null,
    dst_port: port(attrs['dst_port']),
    command: type === 'execve' ? (path ?? argv[0] ?? null) : null,
    args: type === 'execve' ? argv : null, // argv[0] too: an address may hide in any word
    target_id: id(attrs['target_uid']) ?? id(attrs['target_gid']),
  };
}

function id(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** A port as producers give it: a number, or its decimal text (Falco's `fd.sport`-style fields). */
function port(value: unknown): number | null {
  const number = typeof value === 'string' && /^\d{1,5}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 && number <= 65535
    ? number
    : null;
}
