/**
 * The hook transport at the daemon's start: the hook spool read back into the store (what agents'
 * hooks sent while no daemon ran), the hook path warmed (hook-warm-up.ts), then the hook socket
 * opened. In that order, so an event that reaches the new socket is stored after the spooled ones
 * of its session, and is answered by compiled code.
 */
import { join } from 'node:path';
import { hookSocketName } from '../agents/hook-command.js';
import { readHookSpool } from '../agents/hook-spool.js';
import { warmHookPath } from '../agents/hook-warm-up.js';
import type { HookDeps } from '../agents/hooks.route.js';
import { log } from '../shared/log.js';
import type { QueryClient } from '../shared/store-protocol.js';
import type { TelemetryKinds } from '../telemetry/telemetry-kinds.js';
import { HookSocketServer } from './hook-socket-server.js';
import { readPeerCredentials } from './peer-credentials.js';

/**
 * Reads the spool (when the store is ready; else it waits for a start that can store it) and
 * listens on `<dataDir>/hooks.sock`. Null when the addon that reads peer credentials is missing
 * (logged: hooks then answer by hooks.on_daemon_down). Throws PROVD_ERR_HOOK_SOCKET when a file
 * that is not a socket holds the path.
 */
export async function startHookTransport(
  dataDir: string,
  hooks: HookDeps,
  counters: QueryClient<TelemetryKinds>,
  storeReady: boolean,
): Promise<HookSocketServer | null> {
  if (storeReady) {
    const spool = await readHookSpool(dataDir, hooks, counters);
    if (spool.gaps.length > 0 || Object.keys(spool.counters).length > 0)
      log('warn', 'hook events that reached no daemon were read from the hook spool', {
        stored: spool.stored,
        counters: spool.counters,
        runs: spool.gaps.map((gap) => gap.run_id),
      });
  }
  try {
    log('info', 'hook path warmed', { ...warmHookPath(hooks) });
  } catch (error) {
    // only the first hook's speed is at stake: never the daemon's start
    log('warn', 'warming the hook path failed', { error: String(error) });
  }
  if (readPeerCredentials === null) {
    log('warn', 'no hook socket: the native hash addon that reads peer credentials is not built', {
      fix: 'npm run build:native',
    });
    return null;
  }
  const socket = await HookSocketServer.listen(join(dataDir, hookSocketName), { hooks, counters });
  log('info', 'hook socket', { path: socket.path });
  return socket;
}
