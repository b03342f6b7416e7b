/**
 * The paths a record's snapshots skip: what git said it ignores under cwd (ignored files, and
 * ignored directories as `dir/`), plus every `.git` entry. A `.gitignore` file is never skipped,
 * so a command that rewrites ignore rules to hide its other effects shows that rewrite as one.
 */

/** Paths relative to cwd; directories end with `/`. Empty when nothing is skipped. */
export type IgnoredPaths = readonly string[];

export class IgnoreMatch {
  private readonly paths: ReadonlySet<string>;
  /** Whether `.git` entries are skipped (only when git said what it ignores). */
  private readonly skipGitDirs: boolean;

  constructor(paths: IgnoredPaths, skipGitDirs: boolean) {
    this.paths = new Set(paths);
    this.skipGitDirs = skipGitDirs;
  }

  /** Whether the walk skips this entry (`relative` to cwd, its last name `name`). */
  skips(relative: string, name: string, isDir: boolean): boolean {
    if (name === '.gitignore' && !isDir) return false;
    if (this.skipGitDirs && name === '.git') return true;
    return this.paths.has(isDir ? relative + '/' : relative);
  }

  /**
   * Whether a path the walk kept lies under what this list skips: for comparing two snapshots
   * taken with different lists (the command changed what is ignored), each path is judged by both.
   */
  covers(relative: string): boolean {
    if (this.paths.size === 0 && !this.skipGitDirs) return false;
    const names = relative.split('/');
    const last = names.length - 1;
    if (names[last] === '.gitignore') return false;
    let prefix = '';
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (this.skipGitDirs && name === '.git') return true;
      prefix += name;
      if (this.paths.has(i === last ? prefix : prefix + '/')) return true;
      prefix += '/';
    }
    return false;
  }
}
