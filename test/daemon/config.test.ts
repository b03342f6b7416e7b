import assert from 'node:assert/strict';
import { join } from 'node:path';
import { defaultDataDir, parseDurationMs, parseListen, resolveConfig } from '../../src/daemon/config.js';

describe('daemon config', function () {
  it('parses HOST:PORT and [IPV6]:PORT', function () {
    assert.deepEqual(parseListen('127.0.0.1:8574'), { host: '127.0.0.1', port: 8574 });
    assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListen('localhost:65535'), { host: 'localhost', port: 65535 });
  });

  it('rejects a listen address without a port, with a bad port, or with junk', function () {
    for (const bad of [
      '127.0.0.1',
      '127.0.0.1:',
      ':8574',
      '127.0.0.1:65536',
      '127.0.0.1:-1',
      '::1:80',
      'a b:80',
      '127.0.0.1:80x',
    ]) {
      assert.throws(() => parseListen(bad), { code: 'PROVD_ERR_CONFIG_INVALID', message: /--listen/ }, bad);
    }
  });

  it('takes the listen address from --listen, then PROVD_LISTEN, then 127.0.0.1:8574', function () {
    const env = { PROVD_LISTEN: '127.0.0.1:9001' };
    assert.equal(resolveConfig({ listen: '127.0.0.1:9002' }, env).port, 9002);
    assert.equal(resolveConfig({}, env).port, 9001);
    assert.equal(resolveConfig({}, {}).port, 8574);
    assert.throws(() => resolveConfig({}, { PROVD_LISTEN: '0.0.0.0:80' }), /not a loopback address/);
  });

  it('takes the data dir from PROVD_HOME, then XDG_DATA_HOME, then the home directory', function () {
    assert.equal(defaultDataDir({ PROVD_HOME: '/p', XDG_DATA_HOME: '/x' }), '/p');
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/x' }), join('/x', 'provd'));
    assert.match(defaultDataDir({}), /\.local\/share\/provd$/);
  });

  it('prefers --auth-token over PROVD_AUTH_TOKEN and rejects an empty or spaced token', function () {
    assert.equal(resolveConfig({ authToken: 'a' }, { PROVD_AUTH_TOKEN: 'b' }).authToken, 'a');
    assert.equal(resolveConfig({}, { PROVD_AUTH_TOKEN: 'b' }).authToken, 'b');
    assert.equal(resolveConfig({}, {}).authToken, undefined);
    // beyond loopback only with a token
    assert.equal(resolveConfig({ listen: '0.0.0.0:8574' }, { PROVD_AUTH_TOKEN: 'b' }).host, '0.0.0.0');
    assert.throws(() => resolveConfig({ listen: '0.0.0.0:8574' }, {}), {
      code: 'PROVD_ERR_CONFIG_INVALID',
      message: /loopback/,
    });
    assert.equal(resolveConfig({ listen: '[::1]:0' }, {}).host, '::1');
    assert.equal(resolveConfig({ listen: 'localhost:0' }, {}).host, 'localhost');
    assert.throws(() => resolveConfig({ authToken: '' }, {}), { code: 'PROVD_ERR_CONFIG_INVALID' });
    assert.throws(() => resolveConfig({}, { PROVD_AUTH_TOKEN: '  ' }), { code: 'PROVD_ERR_CONFIG_INVALID' });
    assert.throws(() => resolveConfig({ authToken: 'two words' }, {}), { code: 'PROVD_ERR_CONFIG_INVALID' });
  });

  it('captures agents by default, host when asked, and takes bound and all as deprecated names of the two', function () {
    const capture = (flag: string | undefined, env: Record<string, string> = {}) => {
      const config = resolveConfig({ capture: flag }, env);
      return [config.capture, config.captureDeprecated];
    };
    assert.deepEqual(capture(undefined), ['agents', null]);
    assert.deepEqual(capture('host'), ['host', null]);
    assert.deepEqual(capture(undefined, { PROVD_CAPTURE: 'host' }), ['host', null]);
    assert.deepEqual(capture('agents', { PROVD_CAPTURE: 'host' }), ['agents', null]);
    assert.deepEqual(capture('bound'), ['agents', 'bound']);
    assert.deepEqual(capture('all'), ['host', 'all']);
    for (const bad of ['', 'ALL', 'toString', '__proto__', 'agents '])
      assert.throws(
        () => resolveConfig({ capture: bad }, {}),
        { code: 'PROVD_ERR_CONFIG_INVALID', message: /agents or host/ },
        bad,
      );
  });

  it('defaults the body limit to 64 MiB and rejects a limit that is not a positive integer', function () {
    assert.equal(resolveConfig({}, {}).maxBodyBytes, 64 * 1024 * 1024);
    assert.equal(resolveConfig({ maxBodyBytes: '1024' }, {}).maxBodyBytes, 1024);
    for (const bad of ['0', '-5', '1.5', '1e6', 'lots', '']) {
      assert.throws(() => resolveConfig({ maxBodyBytes: bad }, {}), { message: /--max-body-bytes/ }, bad);
    }
  });

  it('leaves host retention off by default and reads its age and size, rejecting junk', function () {
    assert.deepEqual(resolveConfig({}, {}).hostLimits, {
      ageMs: null,
      maxBytes: null,
      roundMs: 60_000,
      verifyFullEveryMs: 86_400_000,
      killBeforeAnchor: false,
    });
    const on = resolveConfig({ retainHostEventsAge: '7d', retainHostEventsBytes: '512M' }, {}).hostLimits;
    assert.equal(on.ageMs, 7 * 86_400_000);
    assert.equal(on.maxBytes, 512 * 1024 * 1024);
    assert.equal(resolveConfig({ retainHostEventsBytes: '4096' }, {}).hostLimits.maxBytes, 4096);
    assert.equal(
      resolveConfig({ retainHostEventsAge: 'off', retainHostEventsBytes: 'off' }, {}).hostLimits.ageMs,
      null,
    );
    for (const bad of ['0', '-1d', '7 days', '1.5h', 'forever', '']) {
      assert.throws(
        () => resolveConfig({ retainHostEventsAge: bad }, {}),
        { code: 'PROVD_ERR_CONFIG_INVALID', message: /--retain-host-events-age/ },
        bad,
      );
    }
    for (const bad of ['0', '-5', '1.5G', '2T', '10 M', 'lots', '']) {
      assert.throws(
        () => resolveConfig({ retainHostEventsBytes: bad }, {}),
        { code: 'PROVD_ERR_CONFIG_INVALID', message: /--retain-host-events-bytes/ },
        bad,
      );
    }
  });

  it('verifies every host event again a day by default, as often as --verify-host-full-every says, or never', function () {
    assert.equal(
      resolveConfig({ verifyHostFullEvery: '6h' }, {}).hostLimits.verifyFullEveryMs,
      6 * 3_600_000,
    );
    assert.equal(resolveConfig({ verifyHostFullEvery: 'off' }, {}).hostLimits.verifyFullEveryMs, null);
    for (const bad of ['0', '-1d', 'daily', '1.5h', '']) {
      assert.throws(
        () => resolveConfig({ verifyHostFullEvery: bad }, {}),
        { code: 'PROVD_ERR_CONFIG_INVALID', message: /--verify-host-full-every/ },
        bad,
      );
    }
  });

  it('puts the database file inside the resolved data dir', function () {
    const config = resolveConfig({ dataDir: 'relative/dir' }, {});
    assert.equal(config.dbPath, join(process.cwd(), 'relative/dir', 'provd.duckdb'));
  });

  // DuckDB globs the paths it reads: rows files under /data/x[1]/ would be read from /data/x1/
  it('refuses a data dir holding *, ? or [, which DuckDB would read as a pattern', function () {
    for (const dir of ['/tmp/x[1]', '/tmp/*', '/tmp/a?b', '/srv/[v]ictim/provd']) {
      assert.throws(
        () => resolveConfig({ dataDir: dir }, {}),
        { code: 'PROVD_ERR_CONFIG_INVALID', message: /--data-dir .* holds \*, \? or \[/ },
        dir,
      );
      assert.throws(() => resolveConfig({}, { PROVD_HOME: dir }), { code: 'PROVD_ERR_CONFIG_INVALID' }, dir);
    }
    for (const dir of ['/tmp/x]1', '/tmp/a{b,c}', '/tmp/host=vm', '/tmp/sp ace', '/tmp/back\\slash'])
      assert.equal(resolveConfig({ dataDir: dir }, {}).dataDir, dir);
  });

  it('reads durations with ms, s, m, h or d, a bare number as seconds, and rejects the rest', function () {
    assert.equal(parseDurationMs('--spool-ttl', undefined, 7), 7);
    assert.equal(parseDurationMs('--spool-ttl', '90', 0), 90_000);
    assert.equal(parseDurationMs('--spool-ttl', '500ms', 0), 500);
    assert.equal(parseDurationMs('--spool-ttl', '2m', 0), 120_000);
    assert.equal(parseDurationMs('--spool-ttl', '1h', 0), 3_600_000);
    assert.equal(parseDurationMs('--spool-ttl', '2d', 0), 172_800_000);
    for (const bad of ['0', '0s', '-1s', '1.5m', '2w', '1D', 'soon', '']) {
      assert.throws(() => parseDurationMs('--spool-ttl', bad, 0), { message: /--spool-ttl/ }, bad);
    }
  });
});
