/**
 * `provd ui` against a real daemon: it prints the web view's URL with the token in the fragment
 * only once the daemon took that token, and names what went wrong otherwise.
 */
import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';

const token = 'ui-cli/tok+en&x=%';

describe('provd ui', function () {
  const fixture = useDaemonFixture();

  it("prints the view's URL with the token in its fragment, for the runs or one run", async function () {
    const daemon = await fixture.start({ authToken: token });
    const bound = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ run_id: 'run ui', tool_call_id: 'tc', cgroup_id: '9' }),
    });
    assert.equal(bound.status, 200);
    const env = { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN: token };
    const runs = await runCli(['ui'], { env });
    assert.deepEqual([runs.code, runs.stderr], [0, '']);
    assert.equal(runs.stdout, `${daemon.url}/ui#token=ui-cli%2Ftok%2Ben%26x%3D%25\n`);
    const one = await runCli(['ui', '--run', 'run ui'], { env });
    assert.equal(one.code, 0, one.stderr);
    const url = new URL(one.stdout.trim());
    assert.equal(url.pathname, '/ui');
    assert.equal(url.search, '', 'nothing the server or its logs would see');
    const fragment = new URLSearchParams(url.hash.slice(1));
    assert.deepEqual([fragment.get('token'), fragment.get('run')], [token, 'run ui']);
  });

  it('prints a URL without a fragment for a daemon without a token', async function () {
    const daemon = await fixture.start();
    const answer = await runCli(['ui'], { env: { PROVD_URL: daemon.url } });
    assert.deepEqual([answer.code, answer.stdout], [0, `${daemon.url}/ui\n`]);
  });

  it('prints no URL for a wrong or missing token, an unknown run, or an unreachable daemon', async function () {
    const daemon = await fixture.start({ authToken: token });
    const cases: [env: Record<string, string>, args: string[], code: number, stderr: RegExp][] = [
      [
        { PROVD_AUTH_TOKEN: 'wrong' },
        ['ui'],
        1,
        /unauthorized: the bearer token is wrong \(the token in PROVD_AUTH_TOKEN/,
      ],
      [{}, ['ui'], 1, /unauthorized: this endpoint needs Authorization/],
      [{ PROVD_AUTH_TOKEN: token }, ['ui', '--run', 'nope'], 1, /run_not_found: no run "nope" is known/],
      [{ PROVD_AUTH_TOKEN: token }, ['ui', '--url', 'http://127.0.0.1:1'], 2, /PROVD_ERR_CLI_UNREACHABLE/],
      [{ PROVD_AUTH_TOKEN: token }, ['ui', '--url', 'ftp://x'], 2, /PROVD_ERR_CONFIG_INVALID: --url/],
      [{ PROVD_AUTH_TOKEN: token }, ['ui', '--run'], 2, /Not enough arguments to option --run/],
    ];
    for (const [env, args, code, stderr] of cases) {
      const answer = await runCli(args, { env: { PROVD_URL: daemon.url, ...env } });
      assert.equal(answer.code, code, `${args.join(' ')} ${JSON.stringify(env)}: ${answer.stderr}`);
      assert.match(answer.stderr, stderr);
      assert.equal(answer.stdout, '', 'no URL');
    }
  });
});
