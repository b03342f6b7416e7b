import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';

const token = 'correct-horse-battery-staple';
const publicPaths = ['/v1/live', '/v1/ready', '/v1/health'];
const protectedPath = '/v1/openapi.json';

describe('bearer auth', function () {
  const fixture = useDaemonFixture();

  it('accepts requests without a token when none is configured', async function () {
    const daemon = await fixture.start();
    assert.equal((await request(daemon.url, protectedPath)).status, 200);
    const withJunk = await request(daemon.url, protectedPath, {
      headers: { authorization: 'Bearer whatever' },
    });
    assert.equal(withJunk.status, 200);
  });

  for (const [how, options] of [
    ['--auth-token', { authToken: token }],
    ['PROVD_AUTH_TOKEN', { env: { PROVD_AUTH_TOKEN: token } }],
  ] as const) {
    it(`answers 401 with WWW-Authenticate: Bearer on a missing or wrong token when configured by ${how}`, async function () {
      const daemon = await fixture.start(options);
      const cases: [string, Record<string, string>, RegExp][] = [
        ['missing', {}, /^Bearer realm="provd"$/],
        ['wrong', { authorization: `Bearer ${token}x` }, /^Bearer realm="provd", error="invalid_token"$/],
        ['prefix', { authorization: `Bearer ${token.slice(0, -1)}` }, /^Bearer .*invalid_token/],
        ['other scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, /^Bearer /],
        ['empty bearer', { authorization: 'Bearer ' }, /^Bearer /],
      ];
      for (const [label, headers, challenge] of cases) {
        const { status, headers: answer, body } = await request(daemon.url, protectedPath, { headers });
        assert.equal(status, 401, label);
        assert.match(answer.get('www-authenticate') ?? '', challenge, label);
        assert.equal((body['error'] as Record<string, unknown>)['code'], 'unauthorized', label);
      }
      const ok = await request(daemon.url, protectedPath, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      const lowerScheme = await request(daemon.url, protectedPath, {
        headers: { authorization: `bearer ${token}` },
      });
      assert.equal(lowerScheme.status, 200, 'the auth scheme is case-insensitive (RFC 7235)');
    });
  }

  it('never asks for the token on live, ready and health', async function () {
    const daemon = await fixture.start({ authToken: token });
    for (const path of publicPaths) {
      assert.equal((await request(daemon.url, path)).status, 200, path);
      const wrong = await request(daemon.url, path, { headers: { authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 200, `${path} with a wrong token`);
    }
  });

  it('checks the token before reading a request body or routing to an unserved path', async function () {
    const daemon = await fixture.start({ authToken: token });
    const { status } = await request(daemon.url, '/v1/telemetry/ingest', {
      method: 'POST',
      body: 'x'.repeat(1024),
    });
    assert.equal(status, 401);
  });
});
