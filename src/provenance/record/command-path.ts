/**
 * The program a recorded command names, found as execvp would find it: a name with a slash is a
 * path (relative to cwd), any other name is looked up in the recorded command's PATH. Found before
 * anything runs, so a missing program is an `error` record, not an exit status of 127.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The absolute path of the program, or why there is none. */
export async function findProgram(
  command: string,
  path: string,
  cwd: string,
): Promise<{ path: string } | { error: string }> {
  const candidates = command.includes('/')
    ? [resolve(cwd, command)]
    : path.split(':').map((dir) => join(dir, command));
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return { path: candidate };
  }
  return command.includes('/')
    ? { error: `${command} is not an executable file` }
    : { error: `${command} was not found in PATH ${path}` };
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
