/**
 * The hook path warmed at the daemon's start (src/agents/hook-warm-up.ts), on a real daemon: each
 * agent's canned PreToolUse is read, judged and answered before the hook socket opens, and leaves
 * nothing behind: no run, no session, no count; a real session that names the warm-up's own
 * session id is stored as any other.
 */
import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';

describe('the hook path warm-up', function () {
  const fixture = useDaemonFixture();

  it('judges and answers each agent once before the hook socket opens, and stores, binds and counts nothing', async function () {
    const daemon = await fixture.start();
    const messages = daemon.logs.map((line) => line['msg']);
    const warmed = daemon.logs.find((line) => line['msg'] === 'hook path warmed');
    assert.ok(warmed, `no warm-up logged: ${JSON.stringify(messages)}`);
    assert.deepEqual(warmed['answered'], { claude: 'allow', codex: 'allow', gemini: 'allow' });
    assert.ok(
      messages.indexOf('hook path warmed') < messages.indexOf('hook socket'),
      JSON.stringify(messages),
    );

    const runs = await request(daemon.url, '/v1/runs');
    assert.deepEqual(runs.body['runs'], []);
    const health = await request(daemon.url, '/v1/health');
    const hooks = (health.body['checks'] as Record<string, Record<string, unknown>>)['hooks']!;
    for (const count of ['refused_tool_call', 'refused_unbound', 'unverified', 'sessions', 'store_failed'])
      assert.equal(hooks[count], 0, `${count}: ${JSON.stringify(hooks)}`);

    // an agent's session of the warm-up's own id: judged and stored as any other
    const pre = {
      session_id: 'provd-warm-up',
      transcript_path: '/dev/null',
      cwd: '/',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'cat /etc/shadow > stolen.txt' },
      tool_use_id: 'provd-warm-up',
    };
    const answer = await request(daemon.url, '/v1/hooks/claude', {
      method: 'POST',
      body: JSON.stringify(pre),
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(
      (answer.body['hookSpecificOutput'] as Record<string, unknown>)['permissionDecision'],
      'deny',
      JSON.stringify(answer.body),
    );
    await eventually(
      "the session's run stored",
      async () => (await request(daemon.url, '/v1/runs')).body['runs'] as Record<string, unknown>[],
      (stored) => stored.some((run) => run['run_id'] === 'provd-warm-up'),
    );
  });
});
