// The `provd` that `npm link` puts on the PATH is bin/provd.js, committed: linked before the first
// build (npm leaves out a link to a file that does not exist), it says what to run, then runs the
// build once there is one. The README's quickstart links it; test/readme/quickstart.test.ts runs that.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { useTempDir } from '../support/temp-dir.js';

describe('the provd that npm link puts on the PATH', function () {
  const work = useTempDir('provd-bin-link-');

  it('is linked before the first build, says what to run until there is one, then runs it', function () {
    // the package as a fresh clone has it, before npm ci and the build: its package.json and bin/
    const pkg = join(work.path, 'provd');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    copyFileSync(join(packageRoot, 'package.json'), join(pkg, 'package.json'));
    copyFileSync(join(packageRoot, 'bin', 'provd.js'), join(pkg, 'bin', 'provd.js'));
    const prefix = join(work.path, 'prefix');
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    const link = spawnSync('npm', ['link', '--no-audit', '--no-fund'], {
      cwd: pkg,
      env: { ...env, npm_config_prefix: prefix },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(link.status, 0, link.stderr);
    const provd = join(prefix, 'bin', 'provd');
    assert.ok(existsSync(provd), 'npm link put provd on the PATH with no dist/ yet');

    const before = spawnSync(provd, ['health'], { encoding: 'utf8' });
    assert.equal(before.status, 2);
    assert.equal(
      before.stderr,
      `provd: not built yet (no ${join(pkg, 'dist', 'src', 'cli', 'main.js')}): run \`npm run setup\` in ${pkg}\n`,
    );

    // a build appears (a stand-in for dist/src/cli/main.js that shows what it was given)
    mkdirSync(join(pkg, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(
      join(pkg, 'dist', 'src', 'cli', 'main.js'),
      'process.stdout.write(JSON.stringify(process.argv.slice(2)));\n',
    );
    const after = spawnSync(provd, ['health', '--wait', '5'], { encoding: 'utf8' });
    assert.equal(after.status, 0, after.stderr);
    assert.equal(after.stdout, '["health","--wait","5"]');
  });
});
