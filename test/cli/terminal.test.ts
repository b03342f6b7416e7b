import assert from 'node:assert/strict';
import { runCli } from '../support/cli.js';
import { useSharedDaemon } from '../support/daemon.js';
import { recordSnakeRun } from '../support/snake-run.js';
import { runOnTerminal } from '../support/terminal.js';

// an ANSI escape sequence (CSI)
const ansiEscape = new RegExp(String.fromCharCode(27) + '\\[');

describe('provd views on a terminal and in a pipe', function () {
  const shared = useSharedDaemon({ authToken: 'tok' });
  const env = { PROVD_AUTH_TOKEN: 'tok' };
  const cli = (args: string[]) => runCli([...args, '--url', shared.daemon.url], { env });

  before(async function () {
    await recordSnakeRun(shared.daemon.url, 'tok');
  });

  it('writes no colour codes to a pipe, and colours a terminal unless NO_COLOR is set', async function () {
    for (const args of [
      ['verify', 'run-snake'],
      ['risks', 'run-snake'],
      ['timeline', 'run-snake'],
    ]) {
      assert.doesNotMatch((await cli(args)).stdout, ansiEscape, args.join(' '));
    }
    const args = ['verify', 'run-snake', '--url', shared.daemon.url];
    const coloured = runOnTerminal(args, env);
    if (coloured === undefined) this.skip();
    assert.match(coloured, new RegExp(String.fromCharCode(27) + '\\[32mok'));
    const plain = runOnTerminal(args, { ...env, NO_COLOR: '1' });
    assert.match(plain!, /verify run-snake: ok/);
    assert.doesNotMatch(plain!, ansiEscape);
  });

  it('cuts long values to the width of a terminal only; a pipe gets them whole', async function () {
    const args = ['timeline', 'run-snake', '--url', shared.daemon.url];
    const piped = await cli(['timeline', 'run-snake']);
    const whole =
      'binding of tool call tc-snake (control_plane, confidence 1) on container_id container-snake-demo';
    assert.ok(piped.stdout.includes(whole), piped.stdout);
    const screen = runOnTerminal(args, { ...env, NO_COLOR: '1' }, 80);
    if (screen === undefined) this.skip();
    const lines = screen.split(/\r?\n/).filter((line) => line !== '');
    assert.equal(lines.length, 9, screen);
    for (const line of lines) assert.ok(line.length <= 80, `longer than the terminal: ${line}`);
    assert.match(
      lines[1]!,
      /^2026-06-29 10:00:00\.000 +binding +tc-snake +context_asserted +binding of \S.*…$/,
    );
    assert.match(lines[2]!, /kernel_correlated +\?\[4000\] execve$/, 'a value that fits is whole');
  });
});
