import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { request } from '../support/http.js';
import { deviationsOf, learnUsual, seedRun } from './baseline-support.js';

/** The status, code and message of an error answer. */
function errorOf(answer: { status: number; body: Record<string, unknown> }): [number, string, string] {
  const error = answer.body['error'] as { code: string; message: string } | undefined;
  return [answer.status, error?.code ?? '', error?.message ?? ''];
}

describe('baselines and deviations: bad input', function () {
  const daemons = useDaemonFixture();

  it('refuses a malformed learn body naming the field, and an unknown run naming it; stores nothing then', async function () {
    const daemon = await daemons.start();
    await seedRun(daemon, 'known', '700', [{ event_type: 'execve', path: '/usr/bin/git' }]);
    const invalid = (message: string): [number, string, string] => [400, 'invalid_argument', message];
    const runsRule = 'runs must be a JSON array of 1..1000 distinct items';
    const cases: [unknown, [number, string, string]][] = [
      ['not json', invalid('body: not valid JSON')],
      [[], invalid('body: must be a JSON object')],
      [{ runs: ['known'] }, invalid('name is required')],
      [{ name: 'agent' }, invalid('runs is required')],
      [{ name: 'agent', runs: [] }, invalid(runsRule)],
      [{ name: 'agent', runs: ['known', 'known'] }, invalid(runsRule)],
      [{ name: 'agent', runs: Array.from({ length: 1001 }, (_v, i) => `r${i}`) }, invalid(runsRule)],
      [{ name: 'agent', runs: 'known' }, invalid(runsRule)],
      [
        { name: '', runs: ['known'] },
        invalid('name must be a string of 1..256 characters without control characters'),
      ],
      [{ name: 'agent', runs: ['known'], window_s: 30 }, invalid('window_s must be one of 10, 60')],
      [
        { name: 'agent', runs: ['known'], tolerance: 3 },
        invalid('unknown field "tolerance" in the baseline body'),
      ],
      [{ name: 'agent', runs: ['known', 'nope'] }, [404, 'run_not_found', 'no run "nope" is known']],
    ];
    for (const [body, expected] of cases) {
      const answer = await request(daemon.url, '/v1/security/baselines', {
        method: 'POST',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      assert.deepEqual(errorOf(answer), expected, JSON.stringify(body).slice(0, 80));
    }
    const listed = await request(daemon.url, '/v1/security/baselines');
    assert.deepEqual([listed.status, listed.body['baselines']], [200, []]);
    // with no baseline learned, a version names nothing
    assert.deepEqual(errorOf(await request(daemon.url, '/v1/security/deviations?run=known&version=1')), [
      404,
      'not_found',
      'no baseline is learned, so it has no version 1',
    ]);
  });

  it('refuses a missing or unknown run, an unknown baseline or version, a bad version and a foreign cursor', async function () {
    const daemon = await daemons.start();
    await learnUsual(daemon);
    // ten binaries the baseline never saw: ten deviations, more than one page of three
    await seedRun(
      daemon,
      'scatter',
      '800',
      Array.from({ length: 10 }, (_v, i) => ({ event_type: 'execve', path: `/opt/tool${i}` })),
    );
    const all = await deviationsOf(daemon, 'scatter', '&baseline=agent');
    assert.equal(all.deviations.length, 10);
    const paged = await deviationsOf(daemon, 'scatter', '&baseline=agent', 3);
    assert.deepEqual(paged.deviations, all.deviations);
    const cursor = paged.first['next_cursor'] as string;
    const cases: [string, [number, string, string]][] = [
      ['', [400, 'invalid_argument', 'run is required']],
      ['run=nope', [404, 'run_not_found', 'no run "nope" is known']],
      ['run=scatter&baseline=ghost', [404, 'not_found', 'no baseline "ghost" is learned']],
      ['run=scatter&baseline=agent&version=9', [404, 'not_found', 'baseline "agent" has no version 9']],
      ['run=scatter&version=0', [400, 'invalid_argument', 'version must be an integer from 1 to 4294967295']],
      [
        'run=scatter&version=two',
        [400, 'invalid_argument', 'version must be an integer from 1 to 4294967295'],
      ],
      ['run=scatter&limit=0', [400, 'invalid_argument', 'limit must be an integer from 1 to 1000']],
      ['run=scatter&cursor=%25%25', [400, 'invalid_cursor', 'cursor is not a token this daemon issued']],
      [
        `run=learn-a&baseline=agent&cursor=${cursor}`,
        [400, 'invalid_cursor', 'cursor was issued for another run or other filters'],
      ],
    ];
    for (const [query, expected] of cases) {
      assert.deepEqual(
        errorOf(await request(daemon.url, `/v1/security/deviations?${query}`)),
        expected,
        query,
      );
    }
    const lookups: [string, [number, string, string]][] = [
      ['/v1/security/baseline', [400, 'invalid_argument', 'name is required']],
      ['/v1/security/baseline?name=ghost', [404, 'not_found', 'no baseline "ghost" is learned']],
      ['/v1/security/baseline?name=agent&version=2', [404, 'not_found', 'baseline "agent" has no version 2']],
      [
        '/v1/security/baselines?limit=1001',
        [400, 'invalid_argument', 'limit must be an integer from 1 to 1000'],
      ],
      [
        '/v1/security/baselines?cursor=abc',
        [400, 'invalid_cursor', 'cursor is not a token this daemon issued'],
      ],
    ];
    for (const [path, expected] of lookups)
      assert.deepEqual(errorOf(await request(daemon.url, path)), expected, path);
    // a name no baseline has is an empty list, not an error
    const none = await request(daemon.url, '/v1/security/baselines?name=ghost');
    assert.deepEqual([none.status, none.body['baselines']], [200, []]);
  });
});
