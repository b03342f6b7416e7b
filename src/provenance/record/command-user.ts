/**
 * Who a recorded command runs as. A daemon that runs as root does not lend root to the commands it
 * records: they would read its signing key and token and leave their cgroup. They run as the user
 * `--record-user` names, else as the owner of their cwd; a cwd that root owns is refused unless
 * `--record-user root` says root is meant. A daemon that is not root runs them as itself.
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/** A user a command runs as: the ids spawn switches to, and the HOME it is given. */
export interface CommandUser {
  uid: number;
  gid: number;
  name: string;
  home: string;
}

/** What decides the user: the daemon's own uid, and `--record-user` when given. */
export interface CommandUserPolicy {
  daemonUid: number;
  /** `--record-user`, resolved at start; undefined: the owner of each command's cwd. */
  configured: CommandUser | undefined;
}

/** The user to run as (null: as the daemon itself), or why the command may not run. */
export async function commandUser(
  policy: CommandUserPolicy,
  cwd: string,
): Promise<{ user: CommandUser | null } | { refused: string }> {
  if (policy.daemonUid !== 0) return { user: null };
  if (policy.configured !== undefined) return { user: policy.configured };
  const owner = await stat(cwd);
  if (owner.uid === 0)
    return {
      refused:
        `cwd "${cwd}" is owned by root, and provd runs recorded commands as their cwd's owner, never as root ` +
        'unless told: start the daemon with --record-user USER, or --record-user root to allow root',
    };
  return {
    user: userById(owner.uid) ?? { uid: owner.uid, gid: owner.gid, name: String(owner.uid), home: cwd },
  };
}

/** `--record-user`: a user name or uid of /etc/passwd; undefined when it names no user there. */
export function findUser(nameOrId: string, passwd = readPasswd()): CommandUser | undefined {
  return passwd.find((user) => user.name === nameOrId || String(user.uid) === nameOrId);
}

function userById(uid: number): CommandUser | undefined {
  return readPasswd().find((user) => user.uid === uid);
}

/** The users of /etc/passwd (name:password:uid:gid:gecos:home:shell). */
function readPasswd(): CommandUser[] {
  let text: string;
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const [name, , uid, gid, , home] = line.split(':');
    if (name === undefined || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) return [];
    return [{ name, uid: Number(uid), gid: Number(gid), home: home || '/' }];
  });
}
