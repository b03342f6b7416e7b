/** The cgroups of recorded commands, as a test waiting for one finds it, and a test's own cgroups removed. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandCgroup } from '../../src/provenance/record/command-cgroup.js';
import { eventually, eventuallyDefined } from './eventually.js';

/**
 * The id of the cgroup POST /v1/record made for `toolCall` under `root`, once its command runs in
 * it (a cgroup of that name left behind by an earlier daemon holds no process).
 */
export async function recordCgroupId(root: string, toolCall: string): Promise<string> {
  const dir = await eventuallyDefined(
    `a cgroup for ${toolCall} under ${root} holding its command`,
    () =>
      readdirSync(root).find(
        (name) =>
          name.startsWith(`${toolCall}-`) &&
          readFileSync(join(root, name, 'cgroup.procs'), 'utf8').trim() !== '',
      ),
    { everyMs: 10 },
  );
  return statSync(join(root, dir), { bigint: true }).ino.toString();
}

/**
 * Kills every process in a cgroup a test made and removes it: a killed process may still be exiting
 * in it (rmdir answers EBUSY until it is gone), so the daemon's own removal is asked again until it holds.
 */
export async function removeTestCgroup(cgroup: CommandCgroup): Promise<void> {
  await eventually(
    `${cgroup.path} removed`,
    () => cgroup.remove(),
    (removed) => removed,
  );
}
