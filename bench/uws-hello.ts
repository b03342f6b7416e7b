/**
 * Baseline server for bench/http.bench.ts: bare uWebSockets.js answering every GET with a small JSON
 * body the size of the daemon's liveness body, so the ratio measures only what provd adds on top.
 * Prints `{"msg":"listening","port":N}` on stderr; exits on SIGTERM or when its parent closes a piped stdin.
 */
import { fstatSync } from 'node:fs';
import uWS from 'uWebSockets.js';

/** Same shape and near the same size as the /v1/live body. */
const body = JSON.stringify({ schema_version: 'provenance.bench_hello/v1', status: 'ok' });

// the package silently falls back to a pure-JS server when the native binary fails to load;
// a baseline measured on that would be meaningless, and getParts exists only natively.
if (typeof uWS.getParts !== 'function') {
  process.stderr.write('uws-hello: the native uWebSockets.js binary did not load; refusing to run\n');
  process.exit(1);
}

const app = uWS.App().get('/*', (res) => {
  res.writeHeader('content-type', 'application/json').end(body);
});

app.listen('127.0.0.1', 0, (listenSocket) => {
  if (listenSocket === false) {
    process.stderr.write('uws-hello: failed to listen on 127.0.0.1\n');
    process.exit(1);
  }
  const port = uWS.us_socket_local_port(listenSocket);
  process.stderr.write(`${JSON.stringify({ msg: 'listening', port })}\n`);
});

process.once('SIGTERM', () => process.exit(0));
// an orphaned baseline would hold its port forever: when stdin is a pipe from the parent, leave with it
if (fstatSync(0).isFIFO()) process.stdin.once('end', () => process.exit(0)).resume();
