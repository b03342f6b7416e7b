/**
 * The command an agent's hooks run: provd's native hook client and the agent's name. The client
 * (`native/hook-client/`, built by `.ci/setup` into `native/build/Release/provd-hook`) reads the
 * hook payload on stdin, sends it to the daemon's hook socket and prints the daemon's answer.
 *
 * Its command line: `provd-hook AGENT [--socket PATH]`. The socket is `--socket`, else
 * `$PROVD_HOOK_SOCKET`, else `<data dir>/hooks.sock` (the data dir as `defaultDataDir` finds it).
 * `$PROVD_RUN`, when set (`provd watch` sets it), names the run the session's events go to.
 */
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

/** Where the native hook client is built. */
export function hookClientPath(): string {
  return join(packageRoot, 'native', 'build', 'Release', 'provd-hook');
}

/** The file name of the daemon's hook socket in its data dir. */
export const hookSocketName = 'hooks.sock';
