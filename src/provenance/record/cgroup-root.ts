/**
 * Where recorded commands get their cgroups: a `provd-records` cgroup v2 directory under the
 * daemon's own cgroup, on the cgroup2 mount named by /proc/self/mountinfo (`/sys/fs/cgroup/unified`
 * on hybrid hosts, `/sys/fs/cgroup` on unified ones). Creating children of one's own cgroup is what
 * cgroup v2 delegation allows; a host without a writable cgroup2 records without one, and says so.
 */
import { accessSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The cgroup parent of recorded commands, or why there is none. */
export type RecordCgroupRoot = { status: 'ok'; path: string } | { status: 'unavailable'; message: string };

/** The mount point of the cgroup2 filesystem in a mountinfo text, if one is mounted. */
export function cgroup2MountPoint(mountinfo: string): string | undefined {
  for (const line of mountinfo.split('\n')) {
    // fields: id parent major:minor root mount-point options [optional...] - fstype source super-options
    const [before, after] = line.split(' - ');
    if (after === undefined || after.split(' ')[0] !== 'cgroup2') continue;
    const mountPoint = before!.split(' ')[4];
    if (mountPoint !== undefined) return unescapeMountinfo(mountPoint);
  }
  return undefined;
}

/** The cgroup v2 path of the process (`0::/path` in /proc/self/cgroup), if it has one. */
export function ownCgroupPath(procCgroup: string): string | undefined {
  const line = procCgroup.split('\n').find((entry) => entry.startsWith('0::'));
  return line?.slice(3);
}

/**
 * The cgroup v2 of process `pid` and each cgroup above it (the root left out), innermost first: its
 * path below the mount and its id (the directory's inode, as the kernel's cgroup ids are; null for
 * a cgroup removed meanwhile). Empty when there is no cgroup2 mount or the process is gone. `mount`:
 * the cgroup2 mount when the caller has read it already.
 */
export function processCgroupChain(
  pid: number,
  mount = cgroup2MountPoint(readFileSync('/proc/self/mountinfo', 'utf8')),
): { path: string; id: string | null }[] {
  try {
    const path = ownCgroupPath(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.trim();
    if (mount === undefined || path === undefined) return [];
    const parts = path.split('/').filter((part) => part !== '');
    const chain: { path: string; id: string | null }[] = [];
    for (let depth = parts.length; depth > 0; depth--) {
      const relative = parts.slice(0, depth).join('/');
      let id: string | null = null;
      try {
        id = statSync(join(mount, relative), { bigint: true }).ino.toString();
      } catch {
        // a cgroup removed meanwhile is named by its path only
      }
      chain.push({ path: relative, id });
    }
    return chain;
  } catch {
    return [];
  }
}

/**
 * Finds and prepares the parent cgroup of recorded commands (or, named `provd-watch`, of watched
 * agents) under the daemon's own cgroup; never throws.
 */
export function probeRecordCgroupRoot(
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
  name = 'provd-records',
): RecordCgroupRoot {
  let mountPoint: string | undefined;
  let own: string | undefined;
  try {
    mountPoint = cgroup2MountPoint(read('/proc/self/mountinfo'));
    own = ownCgroupPath(read('/proc/self/cgroup'));
  } catch (error) {
    return { status: 'unavailable', message: `cannot read /proc/self: ${(error as Error).message}` };
  }
  if (mountPoint === undefined)
    return { status: 'unavailable', message: 'no cgroup2 filesystem is mounted (see /proc/self/mountinfo)' };
  if (own === undefined || own.includes(' (deleted)'))
    return { status: 'unavailable', message: 'the daemon is in no cgroup v2 (see /proc/self/cgroup)' };
  const path = join(mountPoint, own, name);
  try {
    mkdirSync(path, { recursive: true });
    accessSync(join(path, 'cgroup.procs'), constants.W_OK);
  } catch (error) {
    return { status: 'unavailable', message: `cgroup ${path} is not writable: ${(error as Error).message}` };
  }
  return { status: 'ok', path };
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMountinfo(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
