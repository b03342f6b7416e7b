/**
 * Loads a page in headless Chromium (Debian's `chromium`, installed by `.ci/setup --for-tests`) the
 * way a person's browser would, with a profile of its own, and returns what it printed: the DOM
 * after the page's script ran (`--dump-dom`), or nothing with `--screenshot`. Virtual time does not
 * advance while fetches are pending, so the budget waits for the page's data deterministically.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// below mocha's 60 s, so a hung browser fails its test instead of the run
const browserTimeoutMs = 40_000;

/** The chromium command when it is installed, else undefined. */
export function findChromium(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/** Runs headless Chromium on `url` with `args` (a fresh profile each time) and resolves with its stdout. */
export async function runChromium(chromium: string, url: string, args: readonly string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'provd-chromium-'));
  try {
    const child = spawn(
      chromium,
      [
        '--headless',
        '--no-sandbox', // tests run as root, where Chromium's sandbox refuses to start
        '--disable-gpu',
        '--no-first-run',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        '--virtual-time-budget=10000',
        ...args,
        url,
      ],
      { timeout: browserTimeoutMs, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const [code] = (await once(child, 'close')) as [number | null];
    if (code !== 0) throw new Error(`chromium exited with ${code}:\n${stderr.slice(-2000)}`);
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
