/**
 * Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
 * messages ended by a NUL byte, ours on fd 3, Chromium's on fd 4), for what `--dump-dom` cannot
 * show: the address bar, sessionStorage. A few lines of our own instead of a puppeteer download.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

interface Reply {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** One headless browser with one page; `close` ends it and removes its profile. */
export class DevtoolsBrowser {
  private nextId = 1;
  private buffered = '';
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private sessionId = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const fromBrowser = child.stdio[4] as Readable;
    fromBrowser.setEncoding('utf8').on('data', (text: string) => this.receive(text));
    // a browser that died answers nothing more: fail what waits instead of hanging the test
    child.once('exit', (code) => {
      for (const settle of this.pending.values()) settle({ error: { message: `chromium exited (${code})` } });
      this.pending.clear();
    });
  }

  /** Starts Chromium and opens `url` in a page of its own. */
  static async open(chromium: string, url: string): Promise<DevtoolsBrowser> {
    const profile = mkdtempSync(join(tmpdir(), 'provd-chromium-'));
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-pipe'];
    const child = spawn(chromium, [...args, `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    });
    const browser = new DevtoolsBrowser(child, profile);
    const { targetId } = await browser.send('Target.createTarget', { url });
    const attached = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    browser.sessionId = String(attached['sessionId']);
    return browser;
  }

  /** The value of `expression` evaluated in the page (JSON-serializable). */
  async evaluate(expression: string): Promise<unknown> {
    const reply = await this.send('Runtime.evaluate', { expression, returnByValue: true }, this.sessionId);
    return (reply['result'] as { value?: unknown } | undefined)?.value;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    await this.send('Browser.close', {}).catch(() => undefined);
    await exited;
    rmSync(this.profile, { recursive: true, force: true });
  }

  private send(method: string, params: object, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const message = { id, method, params, ...(sessionId === undefined ? {} : { sessionId }) };
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) =>
        reply.error === undefined
          ? resolve(reply.result ?? {})
          : reject(new Error(`${method}: ${reply.error.message}`)),
      );
      (this.child.stdio[3] as Writable).write(JSON.stringify(message) + '\0');
    });
  }

  private receive(text: string): void {
    this.buffered += text;
    let end: number;
    while ((end = this.buffered.indexOf('\0')) >= 0) {
      const reply = JSON.parse(this.buffered.slice(0, end)) as Reply;
      this.buffered = this.buffered.slice(end + 1);
      if (reply.id === undefined) continue; // an event: none is subscribed to
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    }
  }
}
