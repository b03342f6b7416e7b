import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { useDaemonFixture, useSharedDaemon } from '../support/daemon.js';
import { runCli, runDaemonCli } from '../support/cli.js';
import { request } from '../support/http.js';

const token = 'correct-horse-battery-staple';
const publicPaths = ['/v1/live', '/v1/ready', '/v1/health'];
const protectedPath = '/v1/openapi.json';
const sweptMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
// `/` and `/ui...` are the web view's, served without the token (test/views/web/web-pages.test.ts)
const unknownPaths = [
  '/ui/nope',
  '/v1',
  '/v1/nope',
  '/v1/live/',
  '/v1/health/x',
  '/api/nope',
  '/V1/LIVE',
  '/x?y=z',
];

/** Every path of the OpenAPI document in the repo, with the methods it documents (upper case). */
function documentedPaths(): Map<string, Set<string>> {
  const document = JSON.parse(readFileSync(join(packageRoot, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const paths = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(document.paths))
    paths.set(path, new Set(Object.keys(item).map((method) => method.toUpperCase())));
  return paths;
}

/** One raw answer: status, headers and the error code if the body is an error body. */
async function ask(url: string, method: string, headers: Record<string, string>) {
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
  const response = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
  const text = await response.text();
  // GET /metrics answers text; every other answer, errors included, is JSON
  const json = response.headers.get('content-type')?.startsWith('application/json') === true;
  const parsed = (json ? JSON.parse(text) : {}) as { error?: { code?: string } };
  return { status: response.status, headers: response.headers, code: parsed.error?.code };
}

describe('bearer auth', function () {
  const fixture = useDaemonFixture();
  // one daemon with --auth-token for the tests that only ask it (the sweep, which posts to every
  // path, last); a token from the environment or a file, or none, keeps a daemon of its own
  const shared = useSharedDaemon({ authToken: token });

  it('accepts requests without a token when none is configured', async function () {
    const daemon = await fixture.start();
    assert.equal((await request(daemon.url, protectedPath)).status, 200);
    const withJunk = await request(daemon.url, protectedPath, {
      headers: { authorization: 'Bearer whatever' },
    });
    assert.equal(withJunk.status, 200);
  });

  for (const [how, start] of [
    ['--auth-token', () => Promise.resolve(shared.daemon)],
    ['PROVD_AUTH_TOKEN', () => fixture.start({ env: { PROVD_AUTH_TOKEN: token } })],
  ] as const) {
    it(`answers 401 with WWW-Authenticate: Bearer on a missing or wrong token when configured by ${how}`, async function () {
      const daemon = await start();
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
    const { daemon } = shared;
    for (const path of publicPaths) {
      assert.equal((await request(daemon.url, path)).status, 200, path);
      const wrong = await request(daemon.url, path, { headers: { authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 200, `${path} with a wrong token`);
    }
  });

  it('checks the token before reading a request body or routing to an unserved path', async function () {
    const { daemon } = shared;
    const { status } = await request(daemon.url, '/v1/telemetry/ingest', {
      method: 'POST',
      body: 'x'.repeat(1024),
    });
    assert.equal(status, 401);
  });

  it('answers the public health endpoints without host paths unless the request carries the token', async function () {
    const { daemon } = shared;
    /** Every string of a body that holds an absolute path, and every `path` field, by where it is. */
    const pathsIn = (value: unknown, where = ''): string[] => {
      if (typeof value === 'string') return /(^|[\s(='"])\//.test(value) ? [where] : [];
      if (value === null || typeof value !== 'object') return [];
      return Object.entries(value).flatMap(([key, item]) =>
        key === 'path' ? [`${where}.path`] : pathsIn(item, `${where}.${key}`),
      );
    };
    for (const path of ['/v1/health', '/v1/ready']) {
      const open = await request(daemon.url, path);
      assert.equal(open.status, 200);
      assert.deepEqual(pathsIn(open.body), [], `${path} without the token`);
      assert.ok(open.body['checks'] !== undefined && open.body['status'] !== undefined, 'the statuses stay');
      const wrong = await request(daemon.url, path, { headers: { authorization: `Bearer ${token}x` } });
      assert.deepEqual(pathsIn(wrong.body), [], `${path} with a wrong token`);
      const full = await request(daemon.url, path, { headers: { authorization: `Bearer ${token}` } });
      const cgroup = full.body['checks'] as Record<string, { status: string; path?: string }>;
      // the record cgroup names its path where this host gives recorded commands a cgroup
      if (cgroup['record_cgroup']?.status === 'ok') assert.match(cgroup['record_cgroup'].path ?? '', /^\//);
      assert.deepEqual(
        Object.keys(open.body['checks'] as object),
        Object.keys(full.body['checks'] as object),
        'the same checks, only without their paths',
      );
    }
  });

  it('answers 401 before any routing on every path but the health ones, and 404/405 only with the token', async function () {
    const { daemon } = shared;
    const paths = documentedPaths();
    assert.ok(paths.size > 20, 'the sweep covers the whole document');
    const wrong = { authorization: `Bearer ${token}-wrong` };
    const right = { authorization: `Bearer ${token}` };
    for (const path of [...paths.keys(), ...unknownPaths]) {
      const documented = paths.get(path.split('?')[0] ?? path);
      const isPublic = publicPaths.includes(path);
      for (const method of sweptMethods) {
        const where = `${method} ${path}`;
        for (const [label, headers] of [
          ['no token', {}],
          ['wrong token', wrong],
        ] as const) {
          const answer = await ask(daemon.url + path, method, headers);
          if (isPublic) {
            assert.notEqual(answer.status, 401, `${where} (${label}) is public`);
            continue;
          }
          assert.equal(answer.status, 401, `${where} (${label})`);
          assert.equal(answer.code, 'unauthorized', `${where} (${label})`);
          assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer /, `${where} (${label})`);
        }
        const answer = await ask(daemon.url + path, method, right);
        if (documented === undefined) {
          assert.equal(answer.status, 404, `${where} with the token`);
          assert.equal(answer.code, 'not_found', where);
        } else if (!documented.has(method)) {
          assert.equal(answer.status, 405, `${where} with the token`);
          const allow = [...documented, ...(documented.has('GET') ? ['HEAD'] : [])].join(', ');
          assert.equal(answer.headers.get('allow'), allow, where);
        } else {
          assert.ok(![401, 404, 405].includes(answer.status), `${where} with the token: ${answer.status}`);
        }
      }
    }
  });

  it('reads the token from --auth-token-file, keeps it out of the process list, and the CLI reads the same file', async function () {
    const file = join(fixture.dataDir, '..', `token-${process.pid}`);
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    try {
      const daemon = await fixture.start({ args: ['--auth-token-file', file] });
      assert.equal((await request(daemon.url, protectedPath)).status, 401);
      const authorized = { authorization: `Bearer ${token}` };
      assert.equal((await request(daemon.url, protectedPath, { headers: authorized })).status, 200);
      const cmdline = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8');
      assert.ok(!cmdline.includes(token), 'the token is not in /proc/PID/cmdline');
      const runs = await runCli(['runs', '--json'], {
        env: { PROVD_URL: daemon.url, PROVD_AUTH_TOKEN_FILE: file },
      });
      assert.equal(runs.code, 0, runs.stderr);
      const without = await runCli(['runs', '--json'], { env: { PROVD_URL: daemon.url } });
      assert.notEqual(without.code, 0, 'without the file the CLI is refused');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('refuses to start on a token file others may read, one it cannot read, an empty one, or two token flags', async function () {
    const file = join(fixture.dataDir, '..', `token-loose-${process.pid}`);
    try {
      const cases: [string, () => void, string[], RegExp][] = [
        [
          'mode 0644',
          () => writeFileSync(file, token, { mode: 0o644 }),
          ['--auth-token-file', file],
          /mode 0644\): chmod 600/,
        ],
        [
          'missing',
          () => rmSync(file, { force: true }),
          ['--auth-token-file', file],
          /cannot be read \(ENOENT\)/,
        ],
        [
          'empty',
          () => writeFileSync(file, '\n', { mode: 0o600 }),
          ['--auth-token-file', file],
          /must not be empty/,
        ],
        [
          'both flags',
          () => writeFileSync(file, token, { mode: 0o600 }),
          ['--auth-token-file', file, '--auth-token', token],
          /not both/,
        ],
      ];
      for (const [label, prepare, args, message] of cases) {
        rmSync(file, { force: true });
        prepare();
        const started = await runDaemonCli(fixture.dataDir, args);
        assert.equal(started.code, 2, `${label}: ${started.stderr}`);
        assert.match(started.stderr, /PROVD_ERR_CONFIG_INVALID/, label);
        assert.match(started.stderr, message, label);
      }
    } finally {
      rmSync(file, { force: true });
    }
  });
});
