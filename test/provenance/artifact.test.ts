import assert from 'node:assert/strict';
import { assertErrors, contextToken, getOk, recordCall, sha } from '../support/context.js';
import { useDaemonFixture, type RunningDaemon } from '../support/daemon.js';

interface Output {
  hash: string;
  object_hash: string;
}

interface Content {
  encoding: string;
  data: string;
  bytes: number;
  complete: boolean;
}

describe('GET /api/artifact (a recorded output stream)', function () {
  const fixture = useDaemonFixture();

  /** Records `sh -c script` as tool call `id` of `run` and returns its stdout and stderr artifacts. */
  async function outputsOf(
    daemon: RunningDaemon,
    run: string,
    id: string,
    script: string,
  ): Promise<{ stdout: Output; stderr: Output }> {
    const body = await recordCall(daemon, {
      run_id: run,
      tool_call_id: id,
      command: 'sh',
      args: ['-c', script],
    });
    return { stdout: body['stdout'] as Output, stderr: body['stderr'] as Output };
  }

  it('serves text as UTF-8 with its hash recomputed and the objects that name it, by either address', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    const text = 'héllo wörld\n';
    const { stdout, stderr } = await outputsOf(daemon, 'run-a', 'tc-1', `printf '${text}'`);
    await outputsOf(daemon, 'run-b', 'tc-7', `printf '${text}'`);
    const answer = await getOk(daemon, `/api/artifact?hash=${stdout.hash}`);
    const bytes = Buffer.byteLength(text);
    assert.equal(answer['hash'], sha(text));
    assert.deepEqual(
      [
        answer['size'],
        answer['stored_bytes'],
        answer['truncated'],
        answer['hash_ok'],
        answer['recomputed_hash'],
      ],
      [bytes, bytes, false, true, sha(text)],
    );
    assert.deepEqual(answer['content'], { encoding: 'utf8', data: text, bytes, complete: true });
    const named = answer['named_by'] as {
      run_id: string;
      tool_call_id: string;
      stream: string;
      object_hash: string;
    }[];
    assert.deepEqual(
      named.map((object) => [object.run_id, object.tool_call_id, object.stream]),
      [
        ['run-a', 'tc-1', 'stdout'],
        ['run-b', 'tc-7', 'stdout'],
      ],
    );
    assert.equal(named[0]!.object_hash, stdout.object_hash);
    assert.equal(answer['named_by_total'], 2);
    const byObject = await getOk(daemon, `/api/artifact?hash=${stdout.object_hash}`);
    assert.deepEqual(byObject, answer);
    const empty = await getOk(daemon, `/api/artifact?hash=${stderr.hash}`);
    assert.deepEqual(empty['content'], { encoding: 'utf8', data: '', bytes: 0, complete: true });
  });

  it('cuts text on a character, shows binary as base64, and says what it left out', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    const { stdout } = await outputsOf(daemon, 'run-a', 'tc-1', "printf 'hé'");
    // 'h' and the first byte of 'é': the cut moves back to the character's start
    const cut = await getOk(daemon, `/api/artifact?hash=${stdout.hash}&max-bytes=2`);
    assert.deepEqual(cut['content'], { encoding: 'utf8', data: 'h', bytes: 1, complete: false });
    const binary = await outputsOf(daemon, 'run-a', 'tc-2', "printf '\\000\\377bin'");
    const raw = await getOk(daemon, `/api/artifact?hash=${binary.stdout.hash}`);
    const content = raw['content'] as Content;
    assert.deepEqual([content.encoding, content.bytes, content.complete], ['base64', 5, true]);
    assert.equal(sha(Buffer.from(content.data, 'base64')), raw['hash']);
    // more than the 1 MiB a stream keeps: stored cut, and shown cut again at max-bytes
    const big = await outputsOf(daemon, 'run-a', 'tc-3', 'head -c 1100000 /dev/zero');
    const large = await getOk(daemon, `/api/artifact?hash=${big.stdout.hash}`);
    assert.deepEqual(
      [large['size'], large['stored_bytes'], large['truncated'], large['hash_ok']],
      [1100000, 1048576, true, true],
    );
    const shown = large['content'] as Content;
    assert.deepEqual([shown.encoding, shown.bytes, shown.complete], ['base64', 65536, false]);
  });

  it('refuses a missing or malformed address and bound, and answers 404 for bytes nobody stored', async function () {
    const daemon = await fixture.start({ authToken: contextToken });
    const { stdout } = await outputsOf(daemon, 'run-a', 'tc-1', 'printf x');
    await assertErrors(daemon, [
      ['/api/artifact', 400, 'invalid_argument'],
      [`/api/artifact?hash=${stdout.hash.slice('sha256:'.length)}`, 400, 'invalid_argument'],
      [`/api/artifact?hash=${stdout.hash}&max-bytes=0`, 400, 'invalid_argument'],
      [`/api/artifact?hash=${stdout.hash}&max-bytes=1048577`, 400, 'invalid_argument'],
      [`/api/artifact?hash=${sha('never written')}`, 404, 'not_found'],
    ]);
  });
});
