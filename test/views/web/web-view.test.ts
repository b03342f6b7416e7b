/**
 * The web view as a person sees it: a real daemon with a token, a run recorded by executing a real
 * command and ingested kernel events, and the page loaded in headless Chromium with the token in
 * its fragment. The DOM after the page's script ran must show the run's events, its causality tree,
 * its risks and its verify verdict, with agent-chosen text shown as text; a missing or wrong token
 * must show the token form and no data.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../support/cli.js';
import { useDaemonFixture, useSharedDaemon, type RunningDaemon } from '../../support/daemon.js';
import { findChromium, runChromium } from '../../support/chromium.js';
import { DevtoolsBrowser } from '../../support/chromium-devtools.js';
import { eventually } from '../../support/eventually.js';
import { request } from '../../support/http.js';
import { nativeLine } from '../../support/telemetry.js';
import {
  deniedCall,
  hostileCommand,
  hostilePrompt,
  loaderLocaleOpens,
  ranCall,
  storeAgentSession,
} from '../../support/agent-session.js';

// characters a URL fragment must encode, so the page's decoding is tested too
const token = 'web/view+token&x=%';
const auth = { authorization: `Bearer ${token}` };
const run = 'run-web';
/** A file name an agent chose: markup, were the page to parse it. */
const hostileName = `<img src=x onerror="document.title='pwned'">`;

/** Records `sh -c 'echo hi > f; ...'` in a temp cwd and ingests a process that read a credential. */
async function storeRun(daemon: RunningDaemon, cwd: string): Promise<void> {
  const record = await request(daemon.url, '/v1/record', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      run_id: run,
      tool_call_id: 'tc-shell',
      command: 'sh',
      args: ['-c', 'echo hi > f; echo x > "$1"', 'sh', hostileName],
      cwd,
    }),
  });
  assert.equal(record.status, 200, JSON.stringify(record.body));
  const bind = await request(daemon.url, '/v1/telemetry/bind', {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ run_id: run, tool_call_id: 'tc-agent', cgroup_id: '777' }),
  });
  assert.equal(bind.status, 200, JSON.stringify(bind.body));
  const lines = [
    nativeLine({ argv: ['cat', '/root/.aws/credentials'], path: '/usr/bin/cat', comm: 'cat' }),
    nativeLine({ event_type: 'file_open', path: '/root/.aws/credentials', comm: 'cat' }),
  ];
  const ingested = await request(daemon.url, '/v1/telemetry/ingest?format=native', {
    method: 'POST',
    headers: auth,
    body: lines.join('\n'),
  });
  assert.equal(ingested.body['accepted'], 2, JSON.stringify(ingested.body));
}

/** What the page shows and holds, as the DevTools test reads it. */
interface PageState {
  state: string;
  href?: string;
  token?: string | null;
  cookies?: string;
}

/** The `<main>` the page's script fills, from a dumped DOM. */
function mainOf(dom: string): string {
  const main = /<main id="view" data-state="(\w+)">([\s\S]*)<\/main>/.exec(dom);
  assert.ok(main, `no <main> in:\n${dom.slice(0, 2000)}`);
  return main[0];
}

describe('the web view in headless Chromium', function () {
  const fixture = useDaemonFixture();
  let chromium = '';
  let cwd = '';

  before(function () {
    const found = findChromium();
    if (found === undefined) {
      process.stderr.write('      skipped: chromium is not installed (.ci/setup --for-tests installs it)\n');
      this.skip();
    }
    chromium = found;
  });
  beforeEach(function () {
    cwd = mkdtempSync(join(tmpdir(), 'provd-web-cwd-'));
  });
  afterEach(function () {
    rmSync(cwd, { recursive: true, force: true });
  });

  it("shows an agent session as prompt -> tool call -> processes -> events, hostile text as text; the toggle lists the loader's opens", async function () {
    const daemon = await fixture.start({ authToken: token, args: ['--keep-hook-text'] });
    const session = 'session-web';
    await storeAgentSession(daemon.url, auth, session);
    const browser = await DevtoolsBrowser.open(
      chromium,
      `${daemon.url}/ui#token=${encodeURIComponent(token)}&run=${session}`,
    );
    try {
      const read = async (expression: string): Promise<string> => {
        try {
          return String(await browser.evaluate(expression));
        } catch (error) {
          return `not loaded: ${String(error)}`;
        }
      };
      await eventually(
        'the run page',
        () => read(`document.getElementById('view')?.dataset.state`),
        (state) => state === 'ready',
      );
      const section = (): Promise<string> => read(`document.getElementById('session').outerHTML`);
      const text = (): Promise<string> => read(`document.getElementById('session').innerText`);
      const html = await section();
      // the agent's text is text: escaped in the DOM, never an element or an attribute
      const escaped = (value: string): string =>
        value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
      assert.ok(html.includes(escaped(hostilePrompt)), html);
      assert.ok(
        html.includes(escaped(JSON.stringify({ command: hostileCommand, description: 'greeting' }))),
        html,
      );
      assert.equal(
        await read(`document.querySelectorAll('#session script, #session img, #session [onerror]').length`),
        '0',
      );
      assert.equal(await read('document.title'), 'provd');
      const shown = await text();
      assert.match(shown, /claude: 1 prompt, 4 tool calls: 3 allowed \(3 completed, 0 failed\), 1 denied/);
      // in order: the prompt, then the tool call with its decision, its processes and their events
      const order = [
        'prompt',
        `${ranCall}`,
        'allowed (default_allow), completed',
        'pid 5000 (ppid 4000)',
        'bash[5000] execve',
        'file_write /work/proj/greeting.txt',
        '+ 4 loader and locale opens',
        'pid 5001 (ppid 5000)',
        'dns_query example.com',
        '+ 2 loader and locale opens',
        deniedCall,
      ];
      const at = order.map((part) => shown.indexOf(part));
      assert.ok(
        at.every((position, i) => position >= 0 && (i === 0 || position > at[i - 1]!)),
        `${JSON.stringify(at)}\n${shown}`,
      );
      assert.match(shown, /kernel_correlated by cgroup 0\.98/);
      assert.match(shown, new RegExp(`${deniedCall} Bash DENIED: kill by secret_path: [^\\n]*/etc/shadow`));
      assert.match(shown, /nothing ran: no process carries its id/);
      assert.ok(!shown.includes('file_open /etc/ld.so.cache'), 'the read-only ld.so.cache open is folded');
      assert.ok(shown.includes('file_write /etc/ld.so.cache'), 'a write to it is never folded');
      // the toggle asks for the opens: each listed, the count lines gone
      await browser.evaluate(`document.getElementById('show-loader-opens').click()`);
      const all = await eventually('the opens listed', text, (now) => now.includes('locale-archive'));
      for (const open of loaderLocaleOpens) assert.ok(all.includes(`file_open ${open.path}`), open.path);
      assert.ok(!all.includes('+ 4 loader and locale opens'), all);
      assert.equal(
        await read(`document.querySelectorAll('#session li.loader-open').length`),
        String(loaderLocaleOpens.length),
      );
      // the run's timeline table leaves them out with the run's count; its own toggle lists them, marked
      const timeline = (): Promise<string> => read(`document.getElementById('timeline').innerText`);
      const table = await timeline();
      assert.ok(table.includes('6 loader and locale opens of the run not listed'), table);
      assert.ok(!table.includes('file_open /etc/ld.so.cache'), table);
      assert.ok(table.includes('file_write /etc/ld.so.cache'), table);
      await browser.evaluate(`document.getElementById('show-timeline-loader-opens').click()`);
      const listed = await eventually('the table lists the opens', timeline, (now) =>
        now.includes('locale-archive'),
      );
      for (const open of loaderLocaleOpens)
        assert.ok(listed.includes(`file_open ${open.path} [loader]`), open.path);
      assert.ok(listed.includes('6 loader and locale opens of the run, marked [loader]'), listed);
      // the causality tree too: left out of its nodes with the run's count, until its toggle lists them
      const causality = (): Promise<string> => read(`document.getElementById('causality').innerText`);
      const tree = await causality();
      assert.ok(tree.includes('6 loader and locale opens of the run not listed'), tree);
      assert.ok(tree.includes('file_write /etc/ld.so.cache'), tree);
      assert.ok(!tree.includes('locale-archive'), tree);
      await browser.evaluate(`document.getElementById('show-causality-loader-opens').click()`);
      const opened = await eventually('the tree lists the opens', causality, (now) =>
        now.includes('locale-archive'),
      );
      for (const open of loaderLocaleOpens)
        assert.ok(opened.includes(`file_open ${open.path} [loader]`), `${open.path}\n${opened}`);
      assert.ok(opened.includes('6 loader and locale opens of the run, marked [loader]'), opened);
    } finally {
      await browser.close();
    }
  });

  describe('on one daemon, with the run recorded once', function () {
    // these tests only read the run (or no run): one daemon, and the run stored once before them
    const shared = useSharedDaemon({ authToken: token });
    let recordCwd = '';
    before(async function () {
      recordCwd = mkdtempSync(join(tmpdir(), 'provd-web-cwd-'));
      await storeRun(shared.daemon, recordCwd);
    });
    after(function () {
      if (recordCwd !== '') rmSync(recordCwd, { recursive: true, force: true });
    });

    it("shows a recorded run's events, causality tree, risks and verify verdict, agent text as text", async function () {
      const { daemon } = shared;
      // the URL a user opens: the one `provd ui` prints
      const printed = await runCli(['ui', '--run', run], {
        env: { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: token },
      });
      assert.equal(printed.code, 0, printed.stderr);
      const dom = await runChromium(chromium, printed.stdout.trim(), ['--dump-dom']);
      const main = mainOf(dom);
      assert.match(main, /data-state="ready"/);
      assert.match(main, /id="verify-status">ok</, 'the verdict');
      assert.match(main, /0 errors, 0 warnings/);
      // the timeline: the recorded tool call, its file effects, the binding and the kernel events
      assert.match(main, /tool call tc-shell: sh -c echo hi &gt; f;/);
      assert.match(main, /created f \(3 bytes\)/);
      assert.match(main, /cat\[4242\] execve cat \/root\/\.aws\/credentials/);
      // the causality tree: both tool calls, and the process under the bound one
      assert.match(main, /<span class="node-kind">tool call<\/span><span class="mono">tc-shell<\/span>/);
      assert.match(
        main,
        /<span class="node-kind">process<\/span>pid 4242 <span class="mono">cat \/root\/\.aws\/credentials/,
      );
      // the risk of reading a credential
      assert.match(main, /<td>secret_path<\/td>/);
      // beside the decision, what became of it: provd did not run cat, so it could not kill it
      assert.match(main, /<td>kill: not enforced, not a command provd ran<\/td>/);
      assert.match(
        main,
        /cat\[4242\] secret_path \/root\/\.aws\/credentials<\/td><td>kill: not enforced, not a command provd ran<\/td>/,
        'the timeline says it beside the event too',
      );
      // the hostile file name is text: escaped in the DOM, never an element
      assert.match(main, /created &lt;img src=x onerror="document\.title='pwned'"&gt; \(2 bytes\)/);
      assert.doesNotMatch(dom, /<img/i);
      assert.match(dom, /<title>provd<\/title>/);
    });

    it('takes a screenshot of the run page as a PNG of the window size', async function () {
      const { daemon } = shared;
      const file = join(cwd, 'run.png');
      await runChromium(chromium, `${daemon.url}/ui#token=${encodeURIComponent(token)}&run=${run}`, [
        `--screenshot=${file}`,
        '--window-size=1280,1600',
      ]);
      const png = readFileSync(file);
      assert.deepEqual(
        [...png.subarray(0, 8)],
        [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
        'PNG signature',
      );
      assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 1600]);
      // a blank or token-form page of this size compresses to well under this (measured: 9 KB, 25 KB)
      assert.ok(png.length > 40_000, `the screenshot has ${png.length} bytes: is the page empty?`);
    });

    it('lists the runs, each linking to its page', async function () {
      const { daemon } = shared;
      const main = mainOf(
        await runChromium(chromium, `${daemon.url}/ui#token=${encodeURIComponent(token)}`, ['--dump-dom']),
      );
      assert.match(main, /data-state="ready"/);
      assert.match(main, /<table id="runs">/);
      assert.match(main, /<a href="#run=run-web">run-web<\/a>/);
    });

    it('asks for the token when none is given, and says a wrong one is wrong, showing no data', async function () {
      const { daemon } = shared;
      const missing = mainOf(await runChromium(chromium, `${daemon.url}/ui#run=${run}`, ['--dump-dom']));
      assert.match(missing, /data-state="token"/);
      assert.match(missing, /This daemon runs with --auth-token: enter its token/);
      assert.match(missing, /<form class="token" id="token-form"><input type="password"/);
      const wrong = mainOf(
        await runChromium(chromium, `${daemon.url}/ui#token=nope&run=${run}`, ['--dump-dom']),
      );
      assert.match(wrong, /data-state="token"/);
      assert.match(wrong, /The daemon refused this token \(401\): it is wrong/);
      for (const page of [missing, wrong]) {
        assert.doesNotMatch(page, /verify-status|echo hi|tc-shell|credentials/, 'no data without the token');
      }
    });

    it("moves the token from the address bar into the tab's sessionStorage; forgetting it asks again", async function () {
      const { daemon } = shared;
      const browser = await DevtoolsBrowser.open(
        chromium,
        `${daemon.url}/ui#token=${encodeURIComponent(token)}&run=${run}`,
      );
      try {
        // before the page has a context to evaluate in, Chromium answers an error: not loaded yet
        const state = async (): Promise<PageState> => {
          const expression =
            `JSON.stringify({ state: document.getElementById('view')?.dataset.state, href: location.href, ` +
            `token: sessionStorage.getItem('provd.token'), cookies: document.cookie })`;
          try {
            return JSON.parse(String(await browser.evaluate(expression))) as PageState;
          } catch (error) {
            return { state: `not loaded: ${String(error)}` };
          }
        };
        const shown = (want: string) => (answer: PageState) => answer.state === want;
        const ready = await eventually('the run page', state, shown('ready'));
        assert.deepEqual(ready, { state: 'ready', href: `${daemon.url}/ui#run=${run}`, token, cookies: '' });
        await browser.evaluate(`document.getElementById('forget-token').click()`);
        const asked = await eventually('the token form', state, shown('token'));
        assert.equal(asked.token, null);
        // the form: the token goes to sessionStorage, the page reads the run again
        await browser.evaluate(
          `document.querySelector('#token-form input').value = ${JSON.stringify(token)}; ` +
            `document.getElementById('token-form').requestSubmit()`,
        );
        const again = await eventually('the run page again', state, shown('ready'));
        assert.deepEqual([again.href, again.token], [`${daemon.url}/ui#run=${run}`, token]);
      } finally {
        await browser.close();
      }
    });

    it('names an unknown run as the daemon does (run_not_found)', async function () {
      const { daemon } = shared;
      const main = mainOf(
        await runChromium(chromium, `${daemon.url}/ui#token=${encodeURIComponent(token)}&run=nope`, [
          '--dump-dom',
        ]),
      );
      assert.match(main, /data-state="error"/);
      assert.match(main, /The daemon answered 404 run_not_found: no run "nope" is known/);
    });
  });
});
