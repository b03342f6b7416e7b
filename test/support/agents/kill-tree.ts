/**
 * Kills a process and every descendant, whatever group or session each is in: agents start their
 * hooks and tool shells with setsid (Claude Code, measured), so killing the agent's process group
 * leaves them running. The tree is stopped first (a stopped parent forks no more, and its children
 * stay its children to be found), then killed.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Each live pid's parent, from /proc. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // ended meanwhile
    }
  }
  return parentOf;
}

function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** SIGKILLs `root`, its process group and all its descendants. */
export function killTree(root: number): void {
  // twice: what forked between the first look and its stop is found the second time
  let tree: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    tree = descendantsOf(root);
    for (const pid of tree) signal(pid, 'SIGSTOP');
  }
  signal(-root, 'SIGKILL');
  for (const pid of tree) signal(pid, 'SIGKILL');
}
