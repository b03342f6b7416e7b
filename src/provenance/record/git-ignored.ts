/**
 * What git ignores under a recorded command's cwd, asked of git itself (`git ls-files -o -i
 * --exclude-standard --directory`): nested .gitignore files, negations, .git/info/exclude and
 * core.excludesFile all count as git counts them, with no parser of our own to disagree with it.
 *
 * The repository is as untrusted as the command: its config can name programs git runs
 * (core.fsmonitor above all). So git runs as the user the command runs as (nothing it could do
 * is beyond what the command itself may do), with no system or global config, the fsmonitor,
 * hooks, untracked cache and optional locks off, a fixed PATH and environment, stdin closed, a
 * time bound and an output bound. When git is missing, refuses, or a bound is hit, nothing is
 * skipped and the record says why.
 */
import { execFile } from 'node:child_process';
import type { CommandUser } from './command-user.js';
import { findProgram } from './command-path.js';

/** What the snapshots skip, and where that came from. */
export interface GitIgnored {
  /** `git`: git's list (and `.git` entries) is skipped; `none`: nothing is, `reason` says why. */
  source: 'git' | 'none';
  /** Relative to cwd; directories end with `/`. */
  paths: string[];
  reason: string | null;
}

/** Time git may take; past it, nothing is skipped. */
export const gitTimeoutMs = 5000;
/** Bytes of git's list; past them, nothing is skipped. */
export const gitMaxBytes = 16 * 1024 * 1024;

/** Config that keeps git from running anything a repository names, and from writing. */
const safeConfig = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.pager=cat',
  '--no-pager',
  '--no-optional-locks',
];

/** Asks git what it ignores under `cwd`, as `user` (null: the daemon's own user); never rejects. */
export async function gitIgnored(cwd: string, user: CommandUser | null, path: string): Promise<GitIgnored> {
  const git = await findProgram('git', path, cwd);
  if ('error' in git) return none('git was not found: nothing under cwd is skipped');
  const args = [
    ...safeConfig,
    'ls-files',
    '-z',
    '--others',
    '--ignored',
    '--exclude-standard',
    '--directory',
  ];
  const env = {
    PATH: path,
    HOME: user?.home ?? process.env['HOME'] ?? '/',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_ATTR_NOSYSTEM: '1',
  };
  return new Promise((resolve) => {
    const child = execFile(
      git.path,
      args,
      {
        cwd,
        env,
        encoding: 'buffer',
        timeout: gitTimeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: gitMaxBytes,
        ...(user !== null && { uid: user.uid, gid: user.gid }),
      },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ source: 'git', paths: splitPaths(stdout), reason: null });
        const code = (error as NodeJS.ErrnoException).code;
        if (error.killed === true || code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return resolve(
            none(
              code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
                ? `git's list of ignored paths is over ${gitMaxBytes} bytes: nothing under cwd is skipped`
                : `git took over ${gitTimeoutMs} ms: nothing under cwd is skipped`,
            ),
          );
        const said = stderr.toString('utf8').split('\n')[0]!.slice(0, 200);
        if (/not a git repository/.test(said)) return resolve(none('cwd is not in a git work tree'));
        // git 2.39 cannot list from inside an ignored directory: the whole cwd is looked at
        if (/not superset of prefix/.test(said))
          return resolve(none('cwd is itself ignored by git: nothing under it is skipped'));
        resolve(none(`git failed (${said || error.message.slice(0, 200)}): nothing under cwd is skipped`));
      },
    );
    child.stdin?.end();
  });
}

function none(reason: string): GitIgnored {
  return { source: 'none', paths: [], reason };
}

/** NUL-separated paths; git -z writes them unquoted. */
function splitPaths(stdout: Buffer): string[] {
  return stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path !== '');
}
