/**
 * Spawns the compiled baseline server (dist/bench/uws-hello.js) as a child process and waits for its
 * listening line, so the baseline runs in its own process exactly as the daemon does.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Compiled path of bench/uws-hello.ts, next to this file's parent in dist/. */
const helloPath = fileURLToPath(new URL('../uws-hello.js', import.meta.url));

/** A server under load: where to send requests, which process to watch, and how to stop it. */
export interface BenchServer {
  url: string;
  pid: number;
  /** Sends SIGTERM and resolves once the process has exited. */
  stop(): Promise<void>;
}

/** Starts the bare uWS hello server on a random loopback port. */
export async function startHelloServer(): Promise<BenchServer> {
  // stdin is a pipe so the server leaves with us even if we are killed before stopping it
  const child = spawn(process.execPath, [helloPath], { stdio: ['pipe', 'inherit', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      const port = parseListeningPort(line);
      if (port === undefined) process.stderr.write(`uws-hello: ${line}\n`);
      else resolve(port);
    });
    child.once('error', reject);
    void exited.then(() =>
      reject(new Error(`uws-hello exited with code ${child.exitCode} before listening`)),
    );
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Returns the port of a `{"msg":"listening","port":N}` line, or undefined for any other line. */
function parseListeningPort(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return entry.msg === 'listening' && typeof entry.port === 'number' ? entry.port : undefined;
  } catch {
    return undefined;
  }
}
