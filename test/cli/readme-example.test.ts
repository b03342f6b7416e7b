import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { runCli } from '../support/cli.js';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';

// the README shows the ingest; docs/http-api.md the whole walkthrough
const readme = ['README.md', 'docs/http-api.md']
  .map((page) => readFileSync(join(packageRoot, page), 'utf8'))
  .join('\n');

/** The first match of `pattern` in the README, or a failure naming what the README no longer shows. */
function shown(pattern: RegExp, what: string): RegExpExecArray {
  const match = pattern.exec(readme);
  assert.ok(match, `the README no longer shows ${what}`);
  return match;
}

// the walkthrough's commands, read from the README itself, so the test fails when they drift apart
const cliIngest = shown(/^provd ingest (examples\/\S+)[^\n#]*?(?=\s*(?:#|$))/m, 'the provd ingest example');
const curlIngest = shown(
  /-H 'content-type: ([^']+)' \\\n\s+--data-binary @(\S+) "\$PROVD_URL(\/v1\/telemetry\/ingest\?format=\w+)"/,
  'the curl ingest example',
);
const curlBind = shown(
  /-H 'content-type: ([^']+)' \\\n\s+-d '(\{[^']+\})' \\\n\s+"\$PROVD_URL\/v1\/telemetry\/bind"/,
  'the bind example',
);
const curlEvents = shown(/"\$PROVD_URL(\/v1\/telemetry\/events\?[^"]+)"/, 'the events query');

describe('the README walkthrough', function () {
  const daemons = useDaemonFixture();

  it('ships the sample file its ingest examples name', function () {
    assert.equal(cliIngest[1], curlIngest[2]);
    const lines = readFileSync(join(packageRoot, cliIngest[1]!), 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 5);
  });

  it('stores every event of the sample when its provd ingest command runs from the repository root', async function () {
    const daemon = await daemons.start();
    const args = cliIngest[0].trim().split(/\s+/).slice(1);
    const run = await runCli(args, { cwd: packageRoot, env: { PROVD_URL: daemon.url } });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as Record<string, number>;
    assert.equal(summary['accepted'], 5);
    assert.equal(summary['rejected'], 0);
    const sources = (await request(daemon.url, '/v1/telemetry/producer-health')).body['sources'] as Record<
      string,
      Record<string, number>
    >;
    assert.equal(sources['native_jsonl']?.['accepted'], 4);
    assert.equal(sources['tetragon']?.['accepted'], 1);

    // the binding of the walkthrough claims the native events for run-1, and the query finds the read
    const bound = await request(daemon.url, '/v1/telemetry/bind', {
      method: 'POST',
      headers: { 'content-type': curlBind[1]! },
      body: curlBind[2]!,
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    assert.equal(bound.body['recorrelated'], 4);
    const { status, body } = await request(daemon.url, curlEvents[1]!);
    assert.equal(status, 200, JSON.stringify(body));
    const events = body['events'] as Record<string, unknown>[];
    assert.deepEqual(
      events.map((event) => [event['type'], (event['attrs'] as Record<string, unknown>)['path']]),
      [['secret_path', '/home/agent/.aws/credentials']],
    );
  });

  it('stores every event of the sample when its curl ingest request is sent', async function () {
    const daemon = await daemons.start();
    const { status, body } = await request(daemon.url, curlIngest[3]!, {
      method: 'POST',
      headers: { 'content-type': curlIngest[1]! },
      body: readFileSync(join(packageRoot, curlIngest[2]!)),
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['accepted'], 5);
    assert.equal(body['rejected'], 0);
  });
});
