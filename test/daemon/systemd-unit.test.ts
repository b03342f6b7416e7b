/**
 * examples/provd.service: its ExecStart parses with the real CLI and starts a real daemon (on a
 * loopback port and a temp dir of its own, without the sensor), the token coming the way the unit
 * gives it; and `systemd-analyze verify` finds nothing to say about it where systemd is installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { runCli } from '../support/cli.js';
import { assertStopsCleanly, cliPath, spawnServer } from '../support/daemon.js';
import { useTempDir } from '../support/temp-dir.js';

const unitPath = join(packageRoot, 'examples', 'provd.service');
const installedPath = '/usr/local/bin/provd';

/** The unit's settings: section → key → values in order (a key may repeat). */
function readUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section !== null) sections.set(section[1]!, (current = new Map<string, string[]>()));
    else {
      const [, key, value] = /^(\w+)=(.*)$/.exec(line) ?? assert.fail(`not a setting: ${line}`);
      assert.ok(current !== undefined, `${line} before any section`);
      current.set(key!, [...(current.get(key!) ?? []), value!]);
    }
  }
  return sections;
}

describe('examples/provd.service', function () {
  const work = useTempDir('provd-unit-');
  const unit = readUnit(readFileSync(unitPath, 'utf8'));
  const service = unit.get('Service')!;
  const one = (key: string): string => {
    const values = service.get(key) ?? [];
    assert.equal(values.length, 1, `Service ${key} is set once`);
    return values[0]!;
  };

  it('runs provd daemon with a dedicated data dir, a credential token, restarts and the capabilities the sensor needs', function () {
    const exec = one('ExecStart').split(/\s+/);
    assert.deepEqual(exec.slice(0, 2), [installedPath, 'daemon']);
    assert.equal(exec[exec.indexOf('--data-dir') + 1], '/var/lib/provd');
    assert.equal(one('StateDirectory'), 'provd');
    assert.equal(one('StateDirectoryMode'), '0700');
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('RestartPreventExitStatus'), '2', 'a config mistake (exit 2) is not retried');
    assert.match(one('LoadCredential'), /^token:\/etc\/provd\/token$/);
    assert.equal(one('Environment'), 'PROVD_AUTH_TOKEN_FILE=%d/token');
    assert.ok(!exec.includes('--auth-token'), 'no token in the process list');
    const capabilities = one('CapabilityBoundingSet').split(' ');
    for (const needed of ['CAP_BPF', 'CAP_PERFMON', 'CAP_SYS_ADMIN', 'CAP_SYS_RESOURCE'])
      assert.ok(capabilities.includes(needed), needed);
    // these would make /sys (btf, tracefs) or the cgroup fs read-only, or hide them
    for (const blocking of ['ProtectKernelTunables', 'ProtectControlGroups', 'PrivateDevices'])
      assert.ok(!service.has(blocking) || one(blocking) === 'no', blocking);
    assert.equal(one('NoNewPrivileges'), 'yes');
  });

  it('parses its ExecStart with the real CLI and starts the daemon it describes, taking the token as the unit gives it', async function () {
    const args = one('ExecStart').split(/\s+/).slice(1);
    const help = await runCli([...args, '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /provd daemon/);

    // the unit's command line, on a port and a data dir of the test's own, without the sensor
    const dataDir = join(work.path, 'var', 'lib', 'provd');
    const credentials = join(work.path, 'credentials');
    mkdirSync(credentials);
    const token = 'unit-token-0123456789abcdef';
    writeFileSync(join(credentials, 'token'), `${token}\n`);
    chmodSync(join(credentials, 'token'), 0o400); // as systemd leaves a loaded credential
    const local = args.map((arg, index) =>
      args[index - 1] === '--listen' ? '127.0.0.1:0' : args[index - 1] === '--data-dir' ? dataDir : arg,
    );
    const [name, value] = one('Environment').replace('%d', credentials).split('=') as [string, string];
    const { PROVD_AUTH_TOKEN: _t, PROVD_AUTH_TOKEN_FILE: _f, ...inherited } = process.env;
    const server = await spawnServer(cliPath, [...local, '--no-sensor'], { ...inherited, [name]: value });
    try {
      const listening = server.logs.find((entry) => entry['msg'] === 'listening')!;
      assert.equal(listening['data_dir'], dataDir);
      assert.equal(listening['auth'], true);
      assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
      const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(scraped.status, 200);
    } finally {
      await assertStopsCleanly(server);
    }
  });

  it('passes systemd-analyze verify without a warning (the binary path pointed at this build)', function () {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.error !== undefined || probe.status !== 0) {
      console.log(
        `      skipped: systemd-analyze is not installed here (${probe.error?.message ?? probe.stderr})`,
      );
      this.skip();
    }
    // verify checks that ExecStart's program exists and is executable: a stand-in where it is installed
    const program = join(work.path, 'provd');
    writeFileSync(program, `#!/bin/sh\nexec ${process.execPath} ${cliPath} "$@"\n`, { mode: 0o755 });
    const verify = (name: string, text: string) => {
      const path = join(work.path, name);
      writeFileSync(path, text.replaceAll(installedPath, program));
      return spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
    };
    const shipped = readFileSync(unitPath, 'utf8');
    const result = verify('provd.service', shipped);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(`${result.stdout}${result.stderr}`, '', 'no warning');
    // the check can fail: a broken copy of the unit is reported
    const broken = verify('broken.service', shipped.replace('Restart=on-failure', 'Restart=sometimes'));
    assert.match(`${broken.stdout}${broken.stderr}`, /restart specifier/);
  });
});
