/**
 * The web view's files over real HTTP: served without the token (they hold no data), with the
 * headers that keep other pages from scripting, framing or sniffing them, and refused to other
 * sites' pages and to rebinding pages like every other path. The API behind them keeps its token.
 */
import assert from 'node:assert/strict';
import { useDaemonFixture } from '../../support/daemon.js';
import { sendRaw, type RawAnswer } from '../../support/raw-request.js';

const token = 'web-pages-token';
const files: readonly [path: string, type: RegExp][] = [
  ['/ui', /^text\/html; charset=utf-8$/],
  ['/ui/app.js', /^text\/javascript; charset=utf-8$/],
  ['/ui/api.js', /^text\/javascript; charset=utf-8$/],
  ['/ui/app.css', /^text\/css; charset=utf-8$/],
];

function codeOf(answer: RawAnswer): string | undefined {
  return (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code;
}

describe('the web view files', function () {
  const fixture = useDaemonFixture();

  it('serves the page, its modules and style without the token, under a strict policy', async function () {
    const daemon = await fixture.start({ authToken: token });
    for (const [path, type] of files) {
      // a typed URL (Sec-Fetch-Site: none), then the page's own loads of its script and style
      const answer = await sendRaw(daemon, 'GET', path, {
        'sec-fetch-site': path === '/ui' ? 'none' : 'same-origin',
      });
      assert.equal(answer.status, 200, path);
      assert.match(String(answer.headers['content-type']), type, path);
      const policy = String(answer.headers['content-security-policy']);
      for (const directive of [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "form-action 'none'",
        "base-uri 'none'",
      ]) {
        assert.ok(policy.split('; ').includes(directive), `${path}: ${directive} in ${policy}`);
      }
      assert.doesNotMatch(policy, /unsafe|\*|http/, 'no inline script, no other origin');
      assert.equal(answer.headers['x-frame-options'], 'DENY');
      assert.equal(answer.headers['x-content-type-options'], 'nosniff');
      assert.equal(answer.headers['referrer-policy'], 'no-referrer');
      assert.ok(!answer.text.includes(token), `${path} holds no token`);
      assert.equal(answer.headers['set-cookie'], undefined);
    }
    const page = await sendRaw(daemon, 'GET', '/ui');
    assert.match(page.text, /<script type="module" src="\/ui\/app\.js"><\/script>/);
    assert.doesNotMatch(page.text, /<script>|\son\w+=/, 'no inline script or handler');
    // the data behind the page still needs the token
    const runs = await sendRaw(daemon, 'GET', '/v1/runs', { 'sec-fetch-site': 'same-origin' });
    assert.deepEqual([runs.status, codeOf(runs)], [401, 'unauthorized']);
    const authorized = { 'sec-fetch-site': 'same-origin', authorization: `Bearer ${token}` };
    assert.equal((await sendRaw(daemon, 'GET', '/v1/runs', authorized)).status, 200);
  });

  it('redirects / to /ui, answers HEAD, refuses other methods with 405, and keeps other paths behind the token', async function () {
    const daemon = await fixture.start({ authToken: token });
    const root = await sendRaw(daemon, 'GET', '/');
    assert.equal(root.status, 303);
    assert.equal(root.headers['location'], '/ui');
    const head = await sendRaw(daemon, 'HEAD', '/ui');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.ok(Number(head.headers['content-length']) > 100);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const answer = await sendRaw(daemon, method, '/ui/app.js');
      assert.deepEqual([answer.status, codeOf(answer)], [405, 'method_not_allowed'], method);
      assert.equal(answer.headers['allow'], 'GET, HEAD');
    }
    // a file that is not the view's is any unknown path: it needs the token, then is 404
    for (const path of ['/ui/', '/ui/web-pages.js', '/ui/../package.json', '/ui/index.html']) {
      const refused = await sendRaw(daemon, 'GET', path);
      assert.equal(refused.status, 401, path);
      const answer = await sendRaw(daemon, 'GET', path, { authorization: `Bearer ${token}` });
      assert.deepEqual([answer.status, codeOf(answer)], [404, 'not_found'], path);
    }
  });

  it("refuses the view's files to another site's page and to a rebinding page, token or not", async function () {
    for (const authToken of [token, undefined]) {
      const daemon = await fixture.start(authToken === undefined ? {} : { authToken });
      for (const path of ['/ui', '/ui/app.js', '/']) {
        const refusedMarks: Record<string, string>[] = [
          { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'iframe' },
          { 'sec-fetch-site': 'same-site' },
          { origin: 'https://evil.example' },
          { 'sec-fetch-site': 'same-origin', host: `evil.example:${daemon.port}` },
        ];
        for (const marks of refusedMarks) {
          const answer = await sendRaw(daemon, 'GET', path, marks);
          const what = `${path} ${JSON.stringify(marks)} token ${authToken !== undefined}`;
          assert.deepEqual([answer.status, codeOf(answer)], [403, 'forbidden'], what);
        }
      }
      await daemon.stop();
    }
  });
});
