/** The cgroup POST /v1/record makes for a command, as a test waiting for it finds it. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eventuallyDefined } from './eventually.js';

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
