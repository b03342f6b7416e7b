/**
 * The cgroup v2 of one recorded command: made before the command starts, so the trampoline in
 * run-command.ts moves the child into it before the command's first instruction; its id is what
 * the binding names (the kernel's cgroup id is the directory's inode number). Removed once empty.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A cgroup made for one command. */
export class CommandCgroup {
  private constructor(
    readonly path: string,
    /** The cgroup v2 id as events carry it: the directory's inode number, in decimal. */
    readonly id: string,
  ) {}

  /** Makes a fresh cgroup under `root`, named after the tool call and a random suffix. */
  static async create(root: string, toolCallId: string): Promise<CommandCgroup> {
    const slug = toolCallId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
    const path = join(root, `${slug}-${randomBytes(6).toString('hex')}`);
    await mkdir(path);
    const { ino } = await stat(path, { bigint: true });
    return new CommandCgroup(path, ino.toString());
  }

  /** An existing cgroup (one a daemon before this one made). */
  static async open(path: string): Promise<CommandCgroup> {
    const { ino } = await stat(path, { bigint: true });
    return new CommandCgroup(path, ino.toString());
  }

  /** The pids in the cgroup now. */
  async pids(): Promise<number[]> {
    const text = await readFile(join(this.path, 'cgroup.procs'), 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  }

  /**
   * SIGKILLs every process in the cgroup: through `cgroup.kill` (Linux 5.14+), else pid by pid.
   * Returns how many were there.
   */
  async killAll(): Promise<number> {
    const pids = await this.pids();
    if (pids.length === 0) return 0;
    const killFile = join(this.path, 'cgroup.kill');
    if (existsSync(killFile)) await writeFile(killFile, '1').catch(() => undefined);
    else for (const pid of pids) killQuietly(pid);
    return pids.length;
  }

  /** Removes the cgroup once its processes are gone (they are reaped asynchronously); true when removed. */
  async remove(): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        await rmdir(this.path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
        if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return false;
        await this.killAll();
        await sleep(20);
      }
    }
    return false;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
