/** The one place that loads uWebSockets.js, refusing its silent pure-JS fallback. */
import uWS from 'uWebSockets.js';
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
