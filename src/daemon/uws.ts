/** The one place that loads uWebSockets.js, refusing its silent pure-JS fallback. */
import uWS, { type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { ProvdError } from '../shared/errors.js';

/** The uWS module, once its native binary is known to have loaded. */
export function loadUws(): typeof uWS {
  // The package falls back to a JS server without error when its .node binary fails to load;
  // getParts exists only on the native module.
  if (typeof uWS.getParts !== 'function') {
    throw new ProvdError(
      'PROVD_ERR_UWS_NATIVE_MISSING',
      `failed to load the uWebSockets.js native binary for node ${process.versions.node} (${process.platform}-${process.arch}); reinstall with npm ci`,
    );
  }
  return uWS;
}

/** The listen overload uWS 20.30's binding takes but its typings do not list. */
type ListenWithOptions = (
  host: string,
  port: number,
  options: number,
  callback: (socket: us_listen_socket | false) => void,
) => TemplatedApp;

/**
 * Listens on host:port without SO_REUSEPORT. uWS sets it by default on an explicit port, and then a
 * second provd on the same port listens too and the kernel splits connections between the two data
 * dirs; without it, the second one's listen fails. SO_REUSEADDR stays, so a restart can take the
 * port while old connections linger in TIME_WAIT.
 */
export function listenExclusive(
  app: TemplatedApp,
  host: string,
  port: number,
  callback: (socket: us_listen_socket | false) => void,
): void {
  const exclusive = (loadUws() as { LIBUS_LISTEN_EXCLUSIVE_PORT?: number }).LIBUS_LISTEN_EXCLUSIVE_PORT ?? 1;
  (app.listen as unknown as ListenWithOptions).call(app, host, port, exclusive, callback);
}
