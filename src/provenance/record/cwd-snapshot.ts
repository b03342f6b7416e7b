/**
 * A record's snapshot of its cwd with what git ignores left out (git-ignored.ts), and the file
 * effects of two such snapshots with what they skipped, for the record to say.
 */
import type { CommandUser } from './command-user.js';
import {
  compareSnapshots,
  defaultSnapshotLimits,
  type FileEffects,
  type Snapshot,
  type SnapshotIgnore,
  type SnapshotLimits,
} from './file-effects.js';
import { gitIgnored, type GitIgnored } from './git-ignored.js';
import type { RecordIgnoreReport } from './record-answer.js';

/** Takes a snapshot off the main thread (snapshot-pool.ts). */
export type TakeSnapshot = (
  root: string,
  limits: SnapshotLimits,
  ignore: SnapshotIgnore,
) => Promise<Snapshot>;

/** One snapshot and the ignore list it was taken with. */
export interface CwdSnapshot {
  snapshot: Snapshot;
  ignore: SnapshotIgnore;
  git: GitIgnored;
}

/** Asks git what it ignores now, then snapshots cwd without it. */
export async function snapshotCwd(
  take: TakeSnapshot,
  cwd: string,
  user: CommandUser | null,
  path: string,
): Promise<CwdSnapshot> {
  const git = await gitIgnored(cwd, user, path);
  const ignore: SnapshotIgnore = { paths: git.paths, skipGitDirs: git.source === 'git' };
  return { snapshot: await take(cwd, defaultSnapshotLimits, ignore), ignore, git };
}

/** The effects between two snapshots, each path judged by both ignore lists, and what was skipped. */
export function cwdEffects(
  before: CwdSnapshot,
  after: CwdSnapshot,
): { effects: FileEffects; ignore: RecordIgnoreReport } {
  const effects = compareSnapshots(before.snapshot, after.snapshot, defaultSnapshotLimits, [
    before.ignore,
    after.ignore,
  ]);
  const ignore: RecordIgnoreReport = {
    source: after.git.source,
    skipped: Math.max(before.snapshot.skipped, after.snapshot.skipped),
    reason: after.git.reason ?? before.git.reason,
  };
  return { effects, ignore };
}

/** The report of a record whose command did not run. */
export const notRunIgnore: RecordIgnoreReport = { source: 'not_run', skipped: 0, reason: null };
