import assert from 'node:assert/strict';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../src/daemon/config.js';
import { configKeys, loadConfigFile } from '../../src/daemon/config-file.js';
import { runCli } from '../support/cli.js';
import { assertStopsCleanly, cliPath, spawnServer, type RunningServer } from '../support/daemon.js';
import { useTempDir } from '../support/temp-dir.js';

const token = 'config-file-token-42';

describe('provd daemon --config FILE', function () {
  const work = useTempDir('provd-config-');
  const started: RunningServer[] = [];
  afterEach(async function () {
    for (const server of started.splice(0)) await server.stop();
  });

  const file = (name: string, text: string, mode = 0o644): string => {
    const path = join(work.path, name);
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };
  /** Starts `provd daemon ARGS` with no option of the tests' own, so the file's are the ones used. */
  const start = async (args: string[], env: Record<string, string> = {}): Promise<RunningServer> => {
    const { PROVD_AUTH_TOKEN: _t, PROVD_AUTH_TOKEN_FILE: _f, PROVD_HOME: _h, ...inherited } = process.env;
    const server = await spawnServer(cliPath, ['daemon', ...args], { ...inherited, ...env });
    started.push(server);
    return server;
  };
  const listening = (server: RunningServer): Record<string, unknown> =>
    server.logs.find((entry) => entry['msg'] === 'listening')!;

  it('starts with the options of a YAML file, paths relative to the file, and the token it names', async function () {
    file('token', `${token}\n`, 0o600);
    const path = file(
      'config.yaml',
      'listen: 127.0.0.1:0\ndata-dir: data\nno-sensor: true\nauth-token-file: token\nspool-ttl: 90s\nmax-body-bytes: 4096\n',
    );
    const server = await start(['--config', path]);
    assert.equal(listening(server)['data_dir'], join(work.path, 'data'));
    assert.equal(listening(server)['auth'], true);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    const authorized = await fetch(`${server.url}/v1/telemetry/producer-health`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await authorized.json()) as { disk_buffering: { spool_ttl_s: number } };
    assert.equal(body.disk_buffering.spool_ttl_s, 90);
    const tooBig = await fetch(`${server.url}/v1/telemetry/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
      body: 'x'.repeat(5000),
    });
    assert.equal(tooBig.status, 413, 'max-body-bytes from the file applies');
    await assertStopsCleanly(server);
  });

  it('lets command-line options win over the file, and the file win over the environment', async function () {
    const path = file(
      'config.json',
      JSON.stringify({
        listen: '127.0.0.1:0',
        'data-dir': 'from-file',
        sensor: false,
        'auth-token-file': 'absent',
      }),
    );
    const server = await start(
      ['--config', path, '--data-dir', join(work.path, 'from-flag'), '--auth-token', token],
      {
        PROVD_HOME: join(work.path, 'from-env'),
      },
    );
    assert.equal(listening(server)['data_dir'], join(work.path, 'from-flag'));
    assert.equal(listening(server)['auth'], true, "--auth-token replaced the file's missing token file");
    const fromFile = await start(
      [
        '--config',
        file('env.json', JSON.stringify({ listen: '127.0.0.1:0', 'data-dir': 'd', sensor: false })),
      ],
      {
        PROVD_HOME: join(work.path, 'from-env'),
      },
    );
    assert.equal(listening(fromFile)['data_dir'], join(work.path, 'd'));
  });

  it('refuses unknown keys, wrong types and broken files, naming the key, and exits 2', async function () {
    const cases: [string, string, RegExp][] = [
      [
        'unknown.yaml',
        'listen: 127.0.0.1:0\nlisten-port: 80\n',
        /unknown key "listen-port" \(known: listen, data-dir/,
      ],
      ['number.yaml', 'listen: 8574\n', /listen must be a string, not 8574/],
      ['bool.yaml', 'no-sensor: "yes"\n', /no-sensor must be true or false, not "yes"/],
      ['nested.json', '{"data-dir": {"path": "/x"}}', /data-dir must be a path .*, not \{"path":"\/x"\}/],
      ['negative.yaml', 'spool-max-events: -1\n', /spool-max-events must be a non-negative integer, not -1/],
      ['float.yaml', 'max-body-bytes: 1.5\n', /max-body-bytes must be a non-negative integer, not 1\.5/],
      ['range.yaml', 'max-body-bytes: 0\n', /--max-body-bytes must be an integer >= 1, got "0"/],
      ['duration.yaml', 'spool-ttl: soon\n', /--spool-ttl must be a positive duration/],
      ['size.yaml', 'retain-host-events-bytes: lots\n', /--retain-host-events-bytes must be a positive size/],
      ['age.yaml', 'retain-host-events-age: [7d]\n', /retain-host-events-age must be a duration/],
      ['disagree.yaml', 'sensor: true\nno-sensor: true\n', /sensor and no-sensor disagree/],
      ['list.yaml', '- listen\n', /must be a mapping/],
      ['twice.yaml', 'listen: a:1\nlisten: b:2\n', /not valid YAML or JSON: Map keys must be unique/],
      ['broken.json', '{"listen": ', /not valid YAML or JSON/],
    ];
    for (const [name, text, message] of cases) {
      const run = await runCli(['daemon', '--config', file(name, text)]);
      assert.equal(run.code, 2, `${name}: ${run.stderr}`);
      assert.match(run.stderr, /^provd: PROVD_ERR_CONFIG_INVALID: /, name);
      assert.match(run.stderr, message, name);
      assert.doesNotMatch(run.stderr, /^\s+at /m, `${name}: no stack trace`);
    }
    const missing = await runCli(['daemon', '--config', join(work.path, 'absent.yaml')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--config .*absent\.yaml: cannot be read: ENOENT/);
    const directory = await runCli(['daemon', '--config', work.path]);
    assert.equal(directory.code, 2);
    assert.match(directory.stderr, /not a regular file/);
  });

  it('reads host retention and full verification from the file: an age with a unit or in seconds, a size with a unit or in bytes, off', async function () {
    const flags = await loadConfigFile(
      file(
        'retain.yaml',
        'retain-host-events-age: 7d\nretain-host-events-bytes: 2G\nverify-host-full-every: 12h\n',
      ),
    );
    assert.deepEqual(resolveConfig(flags, {}).hostLimits, {
      ageMs: 7 * 86_400_000,
      maxBytes: 2 * 1024 ** 3,
      roundMs: 60_000,
      verifyFullEveryMs: 12 * 3_600_000,
      killBeforeAnchor: false,
    });
    const numbers = await loadConfigFile(
      file(
        'retain.json',
        JSON.stringify({
          'retain-host-events-age': 3600,
          'retain-host-events-bytes': 1048576,
          'verify-host-full-every': 'off',
        }),
      ),
    );
    assert.deepEqual(resolveConfig(numbers, {}).hostLimits, {
      ageMs: 3_600_000,
      maxBytes: 1048576,
      roundMs: 60_000,
      verifyFullEveryMs: null,
      killBeforeAnchor: false,
    });
  });

  it('refuses a file others may write or another user owns, and a token in a file others may read', async function () {
    const writable = file('writable.yaml', 'no-sensor: true\n', 0o666);
    const groupWritable = file('group.yaml', 'no-sensor: true\n', 0o664);
    const foreign = file('foreign.yaml', 'no-sensor: true\n', 0o644);
    chownSync(foreign, 4242, 4242);
    const readable = file('readable.yaml', `auth-token: ${token}\n`, 0o644);
    const cases: [string, RegExp][] = [
      [writable, /other users may write it \(mode 0666\)/],
      [groupWritable, /other users may write it \(mode 0664\)/],
      [foreign, /owned by uid 4242, neither root nor the daemon's user/],
      [readable, /holds auth-token and other users may read it \(mode 0644\): chmod 600 it/],
    ];
    for (const [path, message] of cases) {
      const run = await runCli(['daemon', '--config', path]);
      assert.equal(run.code, 2, `${path}: ${run.stderr}`);
      assert.match(run.stderr, message, path);
      assert.ok(!run.stderr.includes(token), 'the token is never printed');
    }
    const secret = file(
      'secret.yaml',
      `auth-token: ${token}\nlisten: 127.0.0.1:0\ndata-dir: d\nno-sensor: true\n`,
      0o600,
    );
    const server = await start(['--config', secret]);
    assert.equal(listening(server)['auth'], true);
    assert.equal((await fetch(`${server.url}/v1/openapi.json`)).status, 401);
  });

  it('takes a key for every option of provd daemon but --config', async function () {
    const help = (await runCli(['daemon', '--help'])).stdout;
    const options = new Set([...help.matchAll(/--(?:no-)?([a-z][a-z-]+)/g)].map((match) => match[1]!));
    options.delete('config');
    options.delete('help');
    assert.ok(options.size > 12, [...options].join(' '));
    for (const option of options)
      assert.ok(Object.hasOwn(configKeys, option), `no config key for --${option}`);
    assert.deepEqual(await loadConfigFile(file('empty.yaml', '')), {});
  });

  it('reads mcp-read-only as a boolean, over PROVD_MCP_READ_ONLY, and refuses another value', async function () {
    const on = await loadConfigFile(file('on.yaml', 'mcp-read-only: true\n'));
    assert.equal(resolveConfig(on, {}).mcpReadOnly, true);
    const off = await loadConfigFile(file('off.yaml', 'mcp-read-only: false\n'));
    assert.equal(resolveConfig(off, { PROVD_MCP_READ_ONLY: '1' }).mcpReadOnly, false);
    assert.equal(resolveConfig({}, { PROVD_MCP_READ_ONLY: '1' }).mcpReadOnly, true);
    assert.equal(resolveConfig({}, {}).mcpReadOnly, false);
    await assert.rejects(
      loadConfigFile(file('yes.yaml', 'mcp-read-only: "yes"\n')),
      /mcp-read-only must be true or false, not "yes"/,
    );
  });
});
