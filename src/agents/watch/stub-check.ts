/**
 * The daemon's check that a pid a client names is a `provd watch` stub the client started (see
 * watch-stub.ts): its command line is the stub's, and its environment holds the client's nonce.
 * Anyone may name any pid; only the stub's user (or root) can read its environment, so a web page
 * or another local user cannot have the daemon move a process that is not theirs. A stub already in
 * a watched agent's or a recorded command's cgroup is refused: moved out, an agent's tool call would
 * leave its run (and its kill switch) by starting a watch of its own.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { stubArgv, watchNonceVariable } from './watch-stub.js';

/** A waiting stub: its pid, its user (real uid) and its command (argv after the stub's own). */
export interface CheckedStub {
  pid: number;
  uid: number;
  argv: string[];
}

/** The stub, or why `pid` may not be moved. */
export async function checkStub(pid: number, nonce: string): Promise<CheckedStub | { refused: string }> {
  let cmdline: Buffer;
  let environ: Buffer;
  let status: string;
  let cgroup: string;
  try {
    cmdline = await readFile(`/proc/${pid}/cmdline`);
    environ = await readFile(`/proc/${pid}/environ`);
    status = await readFile(`/proc/${pid}/status`, 'utf8');
    cgroup = await readFile(`/proc/${pid}/cgroup`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return { refused: `process ${pid} does not exist` };
    return {
      refused:
        `the daemon (uid ${process.getuid?.() ?? '?'}) cannot read process ${pid} (${code}): a daemon that is ` +
        'not root watches only agents of its own user',
    };
  }
  const argv = splitNul(cmdline);
  if (argv.length <= stubArgv.length || stubArgv.some((part, i) => argv[i] !== part))
    return { refused: `process ${pid} is not a waiting provd watch stub` };
  if (!holdsNonce(splitNul(environ), nonce))
    return { refused: `process ${pid} does not hold this watch's nonce` };
  const inside = /^0::.*\/(provd-watch|provd-records)\/(?:.*\/)?([^/\n]+)$/m.exec(cgroup);
  if (inside !== null)
    return {
      refused:
        `process ${pid} is in ${inside[1] === 'provd-watch' ? 'a watched agent' : 'a recorded command'}'s cgroup ` +
        `(${inside[2]}): what runs there stays in its run, and cannot start a watch of its own`,
    };
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  if (uid === undefined) return { refused: `process ${pid} has no Uid line in /proc/${pid}/status` };
  return { pid, uid: Number(uid), argv: argv.slice(stubArgv.length) };
}

/** Whether the environment names the nonce, compared in constant time. */
function holdsNonce(environment: string[], nonce: string): boolean {
  const prefix = `${watchNonceVariable}=`;
  const given = environment.find((entry) => entry.startsWith(prefix))?.slice(prefix.length);
  if (given === undefined || given.length !== nonce.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(nonce));
}

function splitNul(bytes: Buffer): string[] {
  const parts = bytes.toString('utf8').split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
