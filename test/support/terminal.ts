/** Runs the compiled CLI on a pseudo-terminal, as a user's shell would: for what only a terminal gets. */
import { spawnSync } from 'node:child_process';
import { cliPath } from './daemon.js';

/**
 * Runs `provd ARGS` with stdout on a pseudo-terminal (util-linux `script`), as a user's shell
 * would; undefined where `script` is missing. Its stdout holds what the terminal received.
 */
export function runOnTerminal(
  args: readonly string[],
  env: Record<string, string>,
  columns = 200,
): string | undefined {
  const quoted = [process.execPath, cliPath, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`);
  const { PROVD_AUTH_TOKEN: _token, NO_COLOR: _noColor, ...inherited } = process.env;
  // the terminal's own width, as a user's window sets it
  const command = `stty cols ${columns} rows 50; exec ${quoted.join(' ')}`;
  const result = spawnSync('script', ['-qec', command, '/dev/null'], {
    env: { ...inherited, TERM: 'xterm', ...env },
    encoding: 'utf8',
    timeout: 45_000,
  });
  return result.error === undefined ? result.stdout : undefined;
}
