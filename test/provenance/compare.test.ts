import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertErrors,
  changingScript,
  contextToken,
  getOk,
  recordCall,
  resetFiles,
  sha,
} from '../support/context.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';

interface Brief {
  tool_call_id: string;
}

interface Pair {
  matched_by: string;
  same: boolean;
  differences: string[];
  run: Brief;
  other: Brief;
}

interface Effect {
  path: string;
  effect: string;
}

describe('comparing recorded tool calls (GET /v1/context/compare, GET /api/compare/records)', function () {
  const fixture = useDaemonFixture();
  let work = '';
  beforeEach(function () {
    work = mkdtempSync(join(tmpdir(), 'provd-compare-'));
  });
  afterEach(function () {
    rmSync(work, { recursive: true, force: true });
  });

  /** Records `script` as tool call `id` of `run`, run in `work` from the files as resetFiles leaves them. */
  async function recordScript(daemon: RunningDaemon, run: string, id: string, script: string): Promise<void> {
    resetFiles(work);
    await recordCall(daemon, {
      run_id: run,
      tool_call_id: id,
      command: 'sh',
      args: ['-c', script],
      cwd: work,
    });
  }

  /** Records an asserted call (execute:false): `command test`, run nowhere. */
  function assertedCall(daemon: RunningDaemon, run: string, id: string, command: string): Promise<unknown> {
    return recordCall(daemon, { run_id: run, tool_call_id: id, command, args: ['test'], execute: false });
  }

  it('pairs the tool calls of two runs by id, then by command line, and says what differs', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    await recordScript(daemon, 'run-a', 't1', changingScript(3));
    await assertedCall(daemon, 'run-a', 't2', 'make');
    await recordScript(daemon, 'run-b', 't1', changingScript(0));
    await assertedCall(daemon, 'run-b', 'tc-renamed', 'make');
    await assertedCall(daemon, 'run-b', 'tc-extra', 'ls');
    const compared = await getOk(daemon, '/v1/context/compare?run=run-a&other-run=run-b');
    const counts = { run: 2, other: 3, matched: 2, differing: 1, only_in_run: 0, only_in_other: 1 };
    assert.deepEqual(compared['counts'], counts);
    assert.equal(compared['complete'], true);
    assert.deepEqual(
      (compared['matched'] as Pair[]).map((pair) => [
        pair.run.tool_call_id,
        pair.other.tool_call_id,
        pair.matched_by,
        pair.same,
        pair.differences,
      ]),
      [
        ['t1', 't1', 'tool_call_id', false, ['args', 'status', 'exit_code']],
        ['t2', 'tc-renamed', 'command', true, []],
      ],
    );
    assert.deepEqual(
      (compared['only_in_other'] as Brief[]).map((call) => call.tool_call_id),
      ['tc-extra'],
    );
    assert.deepEqual(compared['only_in_run'], []);
  });

  it('compares two records field by field: how they ended, their outputs and their file effects', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    await recordScript(daemon, 'run-a', 't1', changingScript(3));
    // same outputs; made.txt with other bytes, gone.txt left alone, change.txt changed the same way
    const other = 'printf out; printf err >&2; echo newer > made.txt; echo changed > change.txt; exit 0';
    await recordScript(daemon, 'run-b', 't1', other);
    const compared = await getOk(daemon, '/api/compare/records?run=run-a&tool-call=t1&other-run=run-b');
    assert.deepEqual(compared['differences'], ['args', 'status', 'exit_code', 'file_effects']);
    assert.equal(compared['same'], false);
    const fields = compared['fields'] as { field: string; left: unknown; right: unknown; equal: boolean }[];
    assert.deepEqual(
      fields.map((field) => field.field),
      ['command', 'args', 'cwd', 'executed', 'status', 'exit_code', 'signal', 'error'],
    );
    assert.deepEqual(fields[5], { field: 'exit_code', left: 3, right: 0, equal: false });
    assert.deepEqual(fields[4], { field: 'status', left: 'failed', right: 'completed', equal: false });
    const outputs = compared['outputs'] as {
      stream: string;
      equal: boolean;
      left: { content_hash: string };
    }[];
    assert.deepEqual(
      outputs.map((output) => [output.stream, output.equal, output.left.content_hash]),
      [
        ['stdout', true, sha('out')],
        ['stderr', true, sha('err')],
      ],
    );
    const effects = compared['file_effects'] as {
      equal: boolean;
      complete: boolean;
      same: number;
      changed: { path: string; left: Effect; right: Effect }[];
      only_left: Effect[];
      only_right: Effect[];
    };
    assert.deepEqual([effects.equal, effects.complete, effects.same], [false, true, 1]);
    assert.deepEqual(
      effects.changed.map((change) => [change.path, change.left.effect, change.right.effect]),
      [['made.txt', 'created', 'created']],
    );
    assert.deepEqual(
      effects.only_left.map((effect) => [effect.path, effect.effect]),
      [['gone.txt', 'deleted']],
    );
    assert.deepEqual(effects.only_right, []);
    const sides = ['left', 'right'].map((side) => compared[side] as { run_id: string; tool_call: Brief });
    assert.deepEqual(
      sides.map((side) => [side.run_id, side.tool_call.tool_call_id]),
      [
        ['run-a', 't1'],
        ['run-b', 't1'],
      ],
    );
  });

  it('compares within one run by default, and a record with itself as the same', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    await recordScript(daemon, 'run-a', 't1', changingScript(0));
    await assertedCall(daemon, 'run-a', 't2', 'sh');
    const itself = await getOk(daemon, '/api/compare/records?run=run-a&tool-call=t1');
    assert.deepEqual([itself['same'], itself['differences']], [true, []]);
    const asserted = await getOk(daemon, '/api/compare/records?run=run-a&tool-call=t1&other-tool-call=t2');
    assert.deepEqual(asserted['differences'], [
      'args',
      'cwd',
      'executed',
      'status',
      'exit_code',
      'stdout',
      'stderr',
      'file_effects',
    ]);
    assert.equal((asserted['right'] as { evidence_level: string }).evidence_level, 'context_asserted');
    await assertErrors(daemon, [
      ['/api/compare/records?run=run-a', 400, 'invalid_argument'],
      ['/api/compare/records?tool-call=t1', 400, 'invalid_argument'],
      ['/api/compare/records?run=nope&tool-call=t1', 404, 'run_not_found'],
      ['/api/compare/records?run=run-a&tool-call=t1&other-run=nope', 404, 'run_not_found'],
      ['/api/compare/records?run=run-a&tool-call=t9', 404, 'not_found'],
      ['/api/compare/records?run=run-a&tool-call=t1&other-tool-call=t9', 404, 'not_found'],
      ['/v1/context/compare?run=run-a', 400, 'invalid_argument'],
      ['/v1/context/compare?run=run-a&other-run=nope', 404, 'run_not_found'],
      ['/v1/context/compare?run=nope&other-run=run-a', 404, 'run_not_found'],
    ]);
  });
});
