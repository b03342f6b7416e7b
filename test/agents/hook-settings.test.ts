/** The policy file's `hooks:` block, and the hooks.json the daemon serves it in. */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '../../src/security/policy/policy-file.js';
import { useDaemonFixture } from '../support/daemon.js';
import { useTempDir } from '../support/temp-dir.js';

const fail = (message: string): never => {
  throw new Error(message);
};

describe('hooks: { on_daemon_down } in the policy file', function () {
  const fixture = useDaemonFixture();
  const temp = useTempDir('provd-hook-settings-');

  it('reads fail_open and fail_closed, and refuses anything else naming the field', function () {
    assert.equal(parsePolicy({}, 'p', fail).hooks, undefined);
    assert.deepEqual(parsePolicy({ hooks: { on_daemon_down: 'fail_closed' } }, 'p', fail).hooks, {
      on_daemon_down: 'fail_closed',
    });
    assert.deepEqual(parsePolicy({ hooks: {} }, 'p', fail).hooks, { on_daemon_down: 'fail_open' });
    assert.throws(
      () => parsePolicy({ hooks: { on_daemon_down: 'closed' } }, 'p', fail),
      /hooks\.on_daemon_down must be one of fail_open, fail_closed/,
    );
    assert.throws(() => parsePolicy({ hooks: { timeout: 5 } }, 'p', fail), /hooks: unknown field "timeout"/);
    assert.throws(() => parsePolicy({ hooks: 'fail_open' }, 'p', fail), /hooks must be an object/);
  });

  it('is served at start in <data dir>/hooks.json, world-readable, holding only that setting', async function () {
    const policyFile = join(temp.path, 'policy.json');
    writeFileSync(policyFile, JSON.stringify({ hooks: { on_daemon_down: 'fail_closed' } }));
    await fixture.start({ args: ['--policy', policyFile] });
    const served = join(fixture.dataDir, 'hooks.json');
    assert.deepEqual(JSON.parse(readFileSync(served, 'utf8')), { on_daemon_down: 'fail_closed' });
    assert.equal(statSync(served).mode & 0o777, 0o644);
  });
});
