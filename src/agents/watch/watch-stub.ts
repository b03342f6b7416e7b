/**
 * The stub `provd watch` starts the agent through, a contract between the CLI and the daemon. The
 * CLI spawns `/bin/sh -c <stubScript> provd-watch AGENT ARGS...` with a fresh nonce in
 * `$PROVD_WATCH_NONCE` and a pipe on fd 3; the stub waits on the pipe while the daemon checks that
 * the pid is such a stub holding that nonce (only its user and root can read a process's environ),
 * moves it into the agent's cgroup and binds the cgroup to the run. Told `go`, the stub execs the
 * agent, whose first instruction therefore runs inside the bound cgroup. The nonce never reaches
 * the agent: the stub unsets it, and /proc/PID/environ keeps the block the stub was started with.
 */

/** The variable that carries the nonce to the stub (and no further). */
export const watchNonceVariable = 'PROVD_WATCH_NONCE';

/** The variable the agent (and its hook client) reads the run from. */
export const watchRunVariable = 'PROVD_RUN';

/** The stub's $0, so `ps` says what it is. */
export const stubName = 'provd-watch';

/** Exit status of a stub that was not told to go (the daemon refused, or the CLI is gone). */
export const stubRefusedStatus = 125;

/** The stub: drop the nonce, wait for `go` on fd 3, close it, exec the agent with its arguments. */
export const stubScript =
  `unset ${watchNonceVariable}; IFS= read -r go <&3; exec 3<&-; ` +
  `[ "$go" = go ] || exit ${stubRefusedStatus}; exec "$@"`;

/** The stub's argv up to the agent's own: what /proc/PID/cmdline of a waiting stub starts with. */
export const stubArgv: readonly string[] = ['/bin/sh', '-c', stubScript, stubName];

/** A nonce: 32 random bytes in hex. */
export const noncePattern = /^[0-9a-f]{64}$/;
