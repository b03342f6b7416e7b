/**
 * What the TLS capture tests share (tls.test, tls-go-unsupported.test): a suite's HTTPS server and
 * Go client builds, the TLS targets health reports, and the names of the Go clients.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sensorUnavailable } from '../../src/sensor/host-support.js';
import type { RunningDaemon } from './daemon.js';
import { buildGoAll, goTlsClientSource } from './go-toolchain.js';
import { request } from './http.js';
import { useTempDir } from './temp-dir.js';

export const token = 'tls-test-token';
export const auth = { authorization: `Bearer ${token}` };
const fixtures = fileURLToPath(new URL('../../../test/fixtures/sensor/', import.meta.url));

export interface Target {
  path: string;
  kind: string;
  status: string;
  reason: string | null;
  go_version: string | null;
}

/** Whether `command` runs here. */
function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the TLS tests cannot run here (no sensor, or a command they run is missing), or undefined. */
function tlsTestsUnavailable(): string | undefined {
  return (
    sensorUnavailable() ??
    ['curl', 'openssl', 'python3']
      .filter((command) => !has(command))
      .map((command) => `${command} is not installed`)[0]
  );
}

/** The TLS targets health reports; with the token, since without it health names no paths. */
export async function targets(daemon: RunningDaemon): Promise<Target[]> {
  const capture = (await request(daemon.url, '/v1/health', { headers: auth })).body['native_capture'] as {
    tls?: { targets: Target[] };
  };
  return capture.tls?.targets ?? [];
}

/** The file a Go client built by `version` is written to. */
export const goClientName = (version: string): string => `go${version.replace('.', '')}-client`;

/** A running https_server.py: its URL, and the process to kill. */
interface HttpsServer {
  url: string;
  process: ChildProcess;
}

/**
 * Makes a self-signed certificate for localhost in `dir` and starts the fixture's HTTPS server with
 * it on a free loopback port, outside any recorded command: its side of each exchange is captured
 * unattributed.
 */
async function startHttpsServer(dir: string): Promise<HttpsServer> {
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const server = spawn('python3', [join(fixtures, 'https_server.py'), cert, key], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) =>
    server.stdout.once('data', (line) => resolve(String(line).trim())),
  );
  return { url: `https://127.0.0.1:${port}`, process: server };
}

/** What a TLS suite's tests use, from its first test on. */
export interface TlsSuite {
  /** The HTTPS server's URL. */
  readonly url: string;
  /** The suite's scratch directory, where the Go clients are built (each under its name). */
  readonly dir: string;
  /** The toolchain version of the Go client `name`, once built. */
  built(name: string): Promise<string>;
  /** Resolves once every build has ended, failed or not. */
  everyBuildDone(): Promise<void>;
}

/**
 * Registers a suite's hooks (call it inside a describe): skips the suite, saying why, where the TLS
 * tests cannot run; else starts the HTTPS server and the builds of the Go `clients`, which build
 * while the tests before theirs run, as many at once as there are cores.
 */
export function useTlsSuite(clients: () => { name: string; go: string | undefined }[]): TlsSuite {
  const work = useTempDir('provd-tls-', { per: 'suite' });
  let server: ChildProcess | undefined;
  let url = '';
  let builds = new Map<string, Promise<string>>();
  before(async function () {
    const why = tlsTestsUnavailable();
    if (why !== undefined) {
      process.stderr.write(`      skipped: ${why}\n`);
      this.skip();
    }
    const https = await startHttpsServer(work.path);
    server = https.process;
    url = https.url;
    builds = buildGoAll(clients(), goTlsClientSource, work.path);
  });
  after(function () {
    server?.kill();
  });
  return {
    get url() {
      return url;
    },
    get dir() {
      return work.path;
    },
    built: (name) => builds.get(name)!,
    everyBuildDone: async () => void (await Promise.allSettled(builds.values())),
  };
}
