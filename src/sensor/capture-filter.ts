/**
 * `--capture agents` (the default): the kernel captures only processes a binding names (bpf/lib/emit.h:
 * is_captured). This turns each binding into the keys the kernel's maps hold: cgroup v2 ids (a
 * cgroup and everything below it) and process ids (a process and the children it forks from then
 * on). A binding by container id alone names nothing the kernel sees, so it binds nothing.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cgroup2MountPoint } from '../provenance/record/cgroup-root.js';
import type { Binding } from '../telemetry/binding.js';

/** `--capture`: store only what a binding names (watched agents, recorded commands), or every process of the host. */
export type CaptureMode = 'agents' | 'host';

/** The names `--capture` accepted before `agents` and `host`, still accepted: the daemon's log calls them deprecated. */
export const deprecatedCaptureModes: Readonly<Record<string, CaptureMode>> = { bound: 'agents', all: 'host' };

/** What each mode leaves out on purpose (health's `native_capture.capture.leaves_out`, `provd sensor status`). */
export function captureLeavesOut(mode: CaptureMode): string | null {
  return mode === 'host'
    ? null
    : 'events of processes no binding names (a recorded command, a watched agent, a bound cgroup or pid): ' +
        'left out by choice, not lost, counted per probe as filtered; --capture host stores them';
}

/** One key of the kernel's capture filter. */
export interface CaptureKey {
  kind: 'cgroup' | 'process';
  /** Decimal: a cgroup v2 id (its directory's inode number), or a process id. */
  id: string;
}

/** The cgroup2 mount (`/sys/fs/cgroup/unified` on hybrid hosts), read once; null when none is mounted. */
let cgroupRoot: string | null | undefined;

export function cgroupMount(): string | null {
  if (cgroupRoot === undefined) {
    try {
      cgroupRoot = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8')) ?? null;
    } catch {
      cgroupRoot = null;
    }
  }
  return cgroupRoot;
}

/** The keys `binding` adds to the filter; none for one that has ended. */
export function captureKeys(binding: Binding): CaptureKey[] {
  if (binding.ended_at !== null) return [];
  const keys: CaptureKey[] = [];
  const cgroup = binding.cgroup_id === null ? null : cgroupId(binding.cgroup_id);
  if (cgroup !== null) keys.push({ kind: 'cgroup', id: cgroup });
  for (const pid of [binding.pid, binding.root_pid])
    if (pid !== null) keys.push({ kind: 'process', id: String(pid) });
  if (binding.process_id !== null && /^[1-9][0-9]{0,9}$/.test(binding.process_id))
    keys.push({ kind: 'process', id: binding.process_id });
  return keys;
}

/**
 * A cgroup's id: as given when decimal, else the inode of the path under the cgroup2 mount. A path
 * that climbs out of the mount (`..`) names no cgroup: a binding's caller may be an agent.
 */
function cgroupId(given: string): string | null {
  if (/^[0-9]+$/.test(given)) return given;
  const mount = cgroupMount();
  if (mount === null) return null;
  const path = join(mount, given);
  if (path !== mount && !path.startsWith(`${mount}/`)) return null;
  try {
    return statSync(path, { bigint: true }).ino.toString();
  } catch {
    return null;
  }
}
