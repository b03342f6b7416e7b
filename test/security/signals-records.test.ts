import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useDaemonFixture } from '../support/daemon.js';
import { assertErrors, request } from '../support/http.js';
import { bind } from '../support/telemetry.js';

type Json = Record<string, unknown>;
type Basis = { tables: string[]; event_ids: string[]; tool_call_ids: string[] };

describe('GET /v1/signals of recorded tool calls (quality, asserted cost, refusals)', function () {
  const daemons = useDaemonFixture();
  let empty = '';
  before(function () {
    empty = mkdtempSync(join(tmpdir(), 'provd-signals-cwd-'));
  });
  after(function () {
    rmSync(empty, { recursive: true, force: true });
  });

  it('counts failed, timed-out and retried tool calls, and the LLM usage a harness asserts', async function () {
    const token = 'signals-test-token';
    const auth = { authorization: `Bearer ${token}` };
    const daemon = await daemons.start({ authToken: token });
    const record = async (body: Json): Promise<Json> => {
      const answer = await request(daemon.url, '/v1/record', {
        method: 'POST',
        headers: auth,
        // in an empty dir: snapshots of the daemon's own cwd (this repository) would cost seconds each
        body: JSON.stringify({ run_id: 'run-q', cwd: empty, ...body }),
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    };
    await record({ tool_call_id: 'tc-ok', command: '/bin/true' });
    await record({ tool_call_id: 'tc-fail-1', command: '/bin/sh', args: ['-c', 'exit 3'] });
    await record({ tool_call_id: 'tc-fail-2', command: '/bin/sh', args: ['-c', 'exit 3'] });
    await record({ tool_call_id: 'tc-slow', command: '/bin/sleep', args: ['5'], timeout_ms: 200 });
    await record({ tool_call_id: 'tc-missing', command: '/nonexistent/tool' });
    const usage = {
      model: 'claude-sonnet-4-5',
      input_tokens: 1000,
      output_tokens: 50,
      cached_input_tokens: 200,
    };
    const asserted = await record({
      tool_call_id: 'tc-llm',
      command: 'llm',
      args: ['turn-1'],
      execute: false,
      llm_usage: [usage],
    });
    assert.deepEqual(asserted['llm_usage'], [{ ...usage, requests: 1, cache_write_tokens: 0 }]);
    // the same command with other args: another request, not a retry
    await record({
      tool_call_id: 'tc-llm-2',
      command: 'llm',
      args: ['turn-2'],
      execute: false,
      llm_usage: [{ ...usage, requests: 3 }],
    });

    const answer = await request(daemon.url, '/v1/signals?run=run-q', { headers: auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const calls = (answer.body['quality'] as Record<string, Json>)['tool_calls']!;
    assert.equal(calls['recorded'], 7);
    assert.deepEqual(
      (calls['by_status'] as Json[]).map((row) => [row['status'], row['tool_calls']]),
      [
        ['asserted', 2],
        ['failed', 2],
        ['completed', 1],
        ['error', 1],
        ['timeout', 1],
      ],
    );
    const ids = (name: string): unknown => ((calls[name] as Json)['basis'] as Basis).tool_call_ids;
    assert.deepEqual(ids('failures'), ['tc-fail-1', 'tc-fail-2', 'tc-missing']);
    assert.deepEqual(ids('timeouts'), ['tc-slow']);
    assert.deepEqual(ids('non_zero_exits'), ['tc-fail-1', 'tc-fail-2']);
    const retries = calls['retries'] as Json;
    assert.equal(retries['value'], 1);
    assert.deepEqual(retries['commands'], [
      {
        command: '/bin/sh',
        args: ['-c', 'exit 3'],
        attempts: 2,
        last_status: 'failed',
        tool_call_ids: ['tc-fail-1', 'tc-fail-2'],
      },
    ]);

    const cost = answer.body['cost'] as Record<string, Json>;
    const [model, ...others] = cost['asserted']!['models'] as Json[];
    assert.equal(others.length, 0);
    assert.deepEqual(
      [
        model!['model'],
        model!['family'],
        model!['requests'],
        model!['input_tokens'],
        model!['cached_input_tokens'],
      ],
      ['claude-sonnet-4-5', 'claude-sonnet-4', 4, 2000, 400],
    );
    assert.deepEqual((model!['basis'] as Basis).tool_call_ids, ['tc-llm', 'tc-llm-2']);
    assert.deepEqual((cost['observed']!['totals'] as Json)['requests'], 0, 'nothing observed: never mixed');
  });

  it('refuses a missing, repeated or unknown run, and a harness usage that does not add up', async function () {
    const daemon = await daemons.start();
    await bind(daemon.url, {
      run_id: 'run-a',
      tool_call_id: 'tc',
      cgroup_id: '777',
      started_at: '2026-01-01T00:00:00Z',
    });
    const cases: [string, number, string][] = [
      ['/v1/signals', 400, 'invalid_argument'],
      ['/v1/signals?run=', 400, 'invalid_argument'],
      ['/v1/signals?run=run-a&run=run-b', 400, 'invalid_argument'],
      ['/v1/signals?run=nope', 404, 'run_not_found'],
    ];
    await assertErrors(daemon.url, cases);
    // cached tokens beyond the input, and a field the usage type does not have
    const usages: [Json, RegExp][] = [
      [{ model: 'gpt-4.1', input_tokens: 10, output_tokens: 1, cached_input_tokens: 11 }, /llm_usage\[0\]/],
      [{ model: 'gpt-4.1', input_tokens: 10, output_tokens: 1, dollars: 3 }, /^llm_usage /],
    ];
    for (const [usage, message] of usages) {
      const answer = await request(daemon.url, '/v1/record', {
        method: 'POST',
        body: JSON.stringify({ run_id: 'run-a', command: 'llm', execute: false, llm_usage: [usage] }),
      });
      assert.equal(answer.status, 400, JSON.stringify(usage));
      assert.match((answer.body['error'] as Json)['message'] as string, message);
    }
  });
});
