/**
 * A real MCP host reaches the daemon's POST /mcp: Claude Code (the pinned CLI of .ci/install-agents)
 * with provd added as an HTTP server in its user settings, as docs/ai-tools.md shows, checks its
 * health with `claude mcp list` (an MCP initialize). Skips, saying why, when the CLI is not
 * installed. Nothing leaves the host: the check talks only to the daemon.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { agentCommand, agentMissing } from '../support/agents/installed-agents.js';
import { useSharedDaemon } from '../support/daemon.js';
import { useTempDir } from '../support/temp-dir.js';

const run = promisify(execFile);
const token = 'mcp-http-claude-token';

describe('POST /mcp as Claude Code reaches it (claude mcp add --transport http)', function () {
  const shared = useSharedDaemon({ authToken: token });
  const home = useTempDir('provd-mcp-claude-');

  before(function () {
    const missing = agentMissing('claude');
    if (missing === undefined) return;
    process.stderr.write(`      skipped: ${missing}\n`);
    this.skip();
  });

  /** Runs the claude CLI in the test's own home, with nothing of the test's environment but PATH. */
  async function claude(...args: string[]): Promise<string> {
    const env = { PATH: process.env['PATH'] ?? '', HOME: home.path, DISABLE_AUTOUPDATER: '1' };
    const { stdout } = await run(agentCommand('claude'), args, { env, cwd: home.path, timeout: 60_000 });
    return stdout;
  }

  it('connects with the token, and is refused 401 with a wrong one', async function () {
    this.timeout(120_000);
    const url = `${shared.daemon.url}/mcp`;
    // Claude Code's own command to add an MCP server over HTTP with a header
    const add = (name: string, bearer: string) =>
      claude(
        'mcp',
        'add',
        '--transport',
        'http',
        '--scope',
        'user',
        name,
        url,
        '--header',
        `Authorization: Bearer ${bearer}`,
      );
    await add('provd', token);
    await add('provd-wrong', 'wrong');
    const listed = await claude('mcp', 'list');
    assert.match(listed, new RegExp(`^provd: ${url} \\(HTTP\\) - ✔ Connected$`, 'm'), listed);
    assert.match(listed, /^provd-wrong: .* Failed to connect .*HTTP 401/m, listed);
  });
});
