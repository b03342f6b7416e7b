/**
 * The JSON endpoints' own limits: 1 MiB a body and 32 levels of nesting, checked before the body is
 * parsed, on the main thread every request shares. Ingest keeps --max-body-bytes (64 MiB).
 */
import assert from 'node:assert/strict';
import { maxJsonBodyBytes, maxJsonBodyNesting } from '../../src/shared/http/json-body.js';
import { useSharedDaemon } from '../support/daemon.js';
import { postHeadOnly, request } from '../support/http.js';
import { nativeLine } from '../support/telemetry.js';

const jsonPaths = ['/v1/telemetry/bind', '/v1/record', '/v1/security/evaluate', '/v1/security/baselines'];

/** `{"x": [[...]]}`: an object holding arrays, `levels` deep in all. */
const nested = (levels: number): string => `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

describe('JSON request bodies', function () {
  const shared = useSharedDaemon();

  it('answers 413 naming 1 MiB for a JSON body over it, whatever --max-body-bytes allows ingest', async function () {
    // refused from its Content-Length, before the client sends any of it
    for (const path of jsonPaths) {
      const answer = await postHeadOnly(shared.daemon.url, path, maxJsonBodyBytes + 1, 'application/json');
      assert.equal(answer.status, 413, path);
      const error = (JSON.parse(answer.body) as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'payload_too_large');
      assert.match(error.message, /over the limit of 1048576 bytes/);
    }
    // the 2 MB body of nested arrays that held the main thread a second: refused by its size alone
    const bomb = Buffer.byteLength(`{"x":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`);
    const refused = await postHeadOnly(shared.daemon.url, '/v1/telemetry/bind', bomb, 'application/json');
    assert.equal(refused.status, 413);
    const lines = Array.from({ length: 8000 }, (_v, i) =>
      nativeLine({ pid: 100 + i, comm: 'c'.repeat(200) }),
    );
    const ingest = await request(shared.daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      body: lines.join('\n'),
    });
    assert.equal(ingest.status, 200, 'ingest takes a body of 2 MB');
    assert.equal(ingest.body['accepted'], lines.length);
  });

  it('refuses a JSON body nested past 32 levels before parsing it, and only that', async function () {
    for (const path of jsonPaths) {
      for (const levels of [maxJsonBodyNesting + 1, 50_000]) {
        const answer = await request(shared.daemon.url, path, { method: 'POST', body: nested(levels) });
        assert.equal(answer.status, 400, `${path} at ${levels}`);
        assert.deepEqual(answer.body['error'], {
          code: 'invalid_argument',
          message: `body: nested deeper than ${maxJsonBodyNesting} levels of objects and arrays`,
        });
      }
      // 32 levels are read, and refused (if at all) for what they hold
      const kept = await request(shared.daemon.url, path, {
        method: 'POST',
        body: nested(maxJsonBodyNesting),
      });
      assert.doesNotMatch(JSON.stringify(kept.body), /nested deeper/, path);
    }
    // brackets inside strings, escaped quotes included, are text
    const text = `[\\"${'['.repeat(100)}`;
    const recorded = await request(shared.daemon.url, '/v1/record', {
      method: 'POST',
      body: `{"run_id":"run-json","tool_call_id":"tc","command":"${text}","execute":false}`,
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  });
});
