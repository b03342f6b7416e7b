/**
 * The loader's and locale's opens of every exec, hidden with a count in the table view of any run
 * (a recorded command's, not only an agent session's), on a real daemon and a real DuckDB: native
 * telemetry of two execs, each opening ld.so.cache, libc and the locale files as a real exec does,
 * between what the commands did. GET /v1/timeline (the table and the causality tree) and `provd timeline` must leave them out with
 * the run's count, list them marked with all=true / --all, page exactly over either set, and never
 * hide an open that is judged, writable, unresolved, a preload or a shared object elsewhere.
 */
import assert from 'node:assert/strict';
import { useSharedDaemon } from '../../support/daemon.js';
import { runCli } from '../../support/cli.js';
import { assertErrors, pageItems, request } from '../../support/http.js';
import { nativeLine } from '../../support/telemetry.js';
import {
  deniedLibrary,
  deniedLibraryPolicy,
  loaderLocaleOpens,
  neverFolded,
} from '../../support/agent-session.js';

type Json = Record<string, unknown>;

const token = 'loader-opens-token';
const auth = { authorization: `Bearer ${token}` };
const run = 'loader-opens-run';

const policyFile = deniedLibraryPolicy();

/** Opens never hidden beyond the session fixture's: judged, and a loader path the sensor left unresolved. */
const alsoShown = [
  { pid: 5001, path: deniedLibrary, flags: 'O_RDONLY|O_CLOEXEC' },
  { pid: 5001, path: '/lib/x86_64-linux-gnu/libm.so.6', flags: 'O_RDONLY', path_unresolved: true },
];

/** What the run's two processes did, one event every 10 ms: loader opens between the rest. */
function runEvents(): string[] {
  let ms = 0;
  const at = (): string => new Date(Date.UTC(2026, 0, 1, 0, 0, 1) + (ms += 10)).toISOString();
  const proc = (pid: number): Json => ({
    pid,
    tgid: pid,
    ppid: pid === 5000 ? 4000 : 5000,
    comm: pid === 5000 ? 'bash' : 'cat',
    cgroup_id: '9101',
  });
  const open = ({ pid, ...fields }: { pid: number } & Json): string =>
    nativeLine({ event_type: 'file_open', timestamp: at(), ...proc(pid), ...fields });
  return [
    nativeLine({ timestamp: at(), ...proc(5000), path: '/usr/bin/bash', argv: ['bash', '-c', 'make'] }),
    ...loaderLocaleOpens.slice(0, 4).map(open),
    open({
      pid: 5000,
      path: '/work/proj/out.txt',
      flags: 'O_WRONLY|O_CREAT|O_TRUNC',
      event_type: 'file_write',
    }),
    nativeLine({ timestamp: at(), ...proc(5001), path: '/usr/bin/cat', argv: ['cat', 'out.txt'] }),
    ...loaderLocaleOpens.slice(4).map(open),
    open({ pid: 5001, path: '/work/proj/out.txt', flags: 'O_RDONLY' }),
    ...neverFolded.map(open),
    ...alsoShown.map(open),
    nativeLine({ event_type: 'process_exit', timestamp: at(), ...proc(5001), path: undefined, exit_code: 0 }),
  ];
}

describe('loader and locale opens in the table view of a run', function () {
  const shared = useSharedDaemon({ authToken: token, args: ['--policy', policyFile] });
  const get = async (query: string): Promise<Json> => {
    const answer = await request(shared.daemon.url, `/v1/timeline?run=${run}${query}`, { headers: auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  const eventPaths = (entries: Json[]): (string | null)[] =>
    entries.flatMap((entry) =>
      entry['kind'] === 'event' ? [((entry['event'] as Json)['attrs'] as Json)['path'] as string | null] : [],
    );
  const cli = (args: string[]): ReturnType<typeof runCli> =>
    runCli(args, { env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token } });

  before(async function () {
    const post = async (path: string, body: string): Promise<void> => {
      const answer = await request(shared.daemon.url, path, { method: 'POST', headers: auth, body });
      assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
    };
    // a recorded command's run (no hook wrote it: not an agent session), its cgroup bound
    await post(
      '/v1/record',
      JSON.stringify({ run_id: run, tool_call_id: 'tc-make', command: 'make', execute: false }),
    );
    const binding = {
      run_id: run,
      tool_call_id: 'tc-make',
      cgroup_id: '9101',
      started_at: '2026-01-01T00:00:00Z',
    };
    await post('/v1/telemetry/bind', JSON.stringify(binding));
    await post('/v1/telemetry/ingest?format=native', runEvents().join('\n'));
  });

  it('leaves them out by default and counts the whole run of them', async function () {
    const body = await get('&limit=1000');
    assert.deepEqual([body['view'], body['all'], body['loader_locale_opens']], ['table', false, 6]);
    const entries = body['entries'] as Json[];
    const paths = eventPaths(entries);
    for (const open of loaderLocaleOpens)
      assert.ok(
        !entries.some(
          (entry) =>
            entry['kind'] === 'event' &&
            ((entry['event'] as Json)['attrs'] as Json)['path'] === open.path &&
            ((entry['event'] as Json)['attrs'] as Json)['flags'] === open.flags,
        ),
        `${open.path} is hidden`,
      );
    // every open that is not read-only, judged, unresolved, a preload or elsewhere is shown
    for (const open of [...neverFolded, ...alsoShown]) assert.ok(paths.includes(open.path), open.path);
    assert.ok(paths.includes('/work/proj/out.txt'));
    assert.ok(entries.every((entry) => entry['kind'] !== 'event' || entry['loader_locale'] === false));
    const judged = entries.find(
      (entry) =>
        entry['kind'] === 'event' && ((entry['event'] as Json)['attrs'] as Json)['path'] === deniedLibrary,
    );
    assert.equal((judged?.['risk'] as Json | undefined)?.['decision'], 'deny');
    // the tool call, the binding, 2 execs, the write, cat's own open, 6 + 2 never hidden, the exit
    assert.equal(entries.length, 2 + 2 + 1 + 1 + neverFolded.length + alsoShown.length + 1);
  });

  it('lists them with all=true, each marked, the count the same', async function () {
    const hidden = (await get('&limit=1000'))['entries'] as Json[];
    const body = await get('&limit=1000&all=true');
    assert.deepEqual([body['all'], body['loader_locale_opens']], [true, 6]);
    const entries = body['entries'] as Json[];
    const marked = entries.filter((entry) => entry['loader_locale'] === true);
    assert.deepEqual(
      eventPaths(marked),
      loaderLocaleOpens.map((open) => open.path),
    );
    assert.deepEqual(
      entries.filter((entry) => entry['loader_locale'] !== true),
      hidden,
      'the rest as without all',
    );
  });

  it('pages exactly over the set asked for: full pages, each entry once, in order', async function () {
    for (const [all, query] of [
      [false, ''],
      [true, '&all=true'],
    ] as const) {
      const whole = (await get(`&limit=1000${query}`))['entries'] as Json[];
      for (const limit of [1, 2, 3, 5]) {
        const paged = await pageItems<Json>(
          shared.daemon.url,
          `/v1/timeline?run=${run}${query}`,
          'entries',
          limit,
          auth,
        );
        assert.deepEqual(paged, whole, `all=${all} limit=${limit}`);
      }
    }
  });

  it('refuses a bad all= and a cursor of the other set', async function () {
    const first = await get('&limit=2&all=true');
    const cursor = String(first['next_cursor']);
    await assertErrors(
      shared.daemon.url,
      [
        [`/v1/timeline?run=${run}&all=maybe`, 400, 'invalid_argument'],
        [`/v1/timeline?run=${run}&limit=2&cursor=${cursor}`, 400, 'invalid_cursor'],
      ],
      auth,
    );
    const next = await get(`&limit=2&all=true&cursor=${cursor}`);
    assert.equal((next['entries'] as Json[]).length, 2);
  });

  it('provd timeline says how many it left out; --all lists them marked [loader]', async function () {
    const printed = await cli(['timeline', run]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^TIME \(UTC\)\s+KIND/);
    assert.match(printed.stdout, /\n6 loader and locale opens of the run not listed \(--all lists them\)\n$/);
    assert.doesNotMatch(printed.stdout, /file_open \/etc\/ld\.so\.cache/);
    assert.match(printed.stdout, /file_open \/etc\/ld\.so\.preload/);
    assert.match(printed.stdout, new RegExp(`file_open ${deniedLibrary.replaceAll('.', '\\.')} \\[deny`));

    const all = await cli(['timeline', run, '--all']);
    assert.equal(all.code, 0, all.stderr);
    for (const open of loaderLocaleOpens)
      assert.ok(all.stdout.includes(`file_open ${open.path} [loader]`), `${open.path}\n${all.stdout}`);
    assert.match(all.stdout, /\n\(6 loader and locale opens of the run listed, marked \[loader\]\)\n$/);

    const paged = await cli(['timeline', run, '--all', '--limit', '3']);
    assert.equal(paged.code, 0, paged.stderr);
    assert.match(paged.stderr, new RegExp(`provd timeline ${run} --all --cursor `));
  });

  it("the causality tree leaves them out of every count and list, the run's counted; all=true lists and counts them, marked", async function () {
    type Node = Json & { children: Node[]; events?: Json[]; counts: { total: number; by_type: Json } };
    const tree = async (query: string): Promise<{ body: Json; processes: Node[] }> => {
      const body = await get(`&view=causality${query}`);
      const processes: Node[] = [];
      const walk = (node: Node): void => {
        if (node['node'] === 'process') processes.push(node);
        node.children.forEach(walk);
      };
      walk(body['root'] as Node);
      return { body, processes };
    };
    const listed = (processes: Node[]): { path: unknown; marked: unknown }[] =>
      processes.flatMap((process) =>
        process.events!.map((event) => ({
          path: (event['summary'] as string).split(' ').pop(),
          marked: event['loader_locale'],
        })),
      );
    const hidden = await tree('');
    assert.deepEqual([hidden.body['all'], hidden.body['loader_locale_opens']], [false, 6]);
    const root = (hidden.body['root'] as Node).counts;
    const shown = await tree('&all=true');
    assert.deepEqual([shown.body['all'], shown.body['loader_locale_opens']], [true, 6]);
    const rootAll = (shown.body['root'] as Node).counts;
    // the same run, 6 file_opens fewer in every sum by default
    assert.equal(root.total, rootAll.total - 6);
    assert.equal(root.by_type['file_open'], (rootAll.by_type['file_open'] as number) - 6);
    for (const [at, process] of hidden.processes.entries()) {
      const own = loaderLocaleOpens.filter((open) => open.pid === process['tgid']).length;
      assert.equal(
        process.counts.total,
        shown.processes[at]!.counts.total - own,
        `process ${String(process['tgid'])}`,
      );
    }
    const paths = listed(hidden.processes);
    assert.ok(paths.every((event) => event.marked === false));
    for (const open of [...neverFolded, ...alsoShown])
      assert.ok(
        paths.some((event) => event.path === open.path),
        `${open.path} is listed`,
      );
    // with all=true the same events and the 6, each marked (every process lists its whole few here)
    const marked = listed(shown.processes).filter((event) => event.marked === true);
    assert.deepEqual(
      marked.map((event) => event.path).sort(),
      loaderLocaleOpens.map((open) => open.path).sort(),
    );
    for (const [at, process] of hidden.processes.entries())
      assert.deepEqual(
        process.events,
        shown.processes[at]!.events!.filter((event) => event['loader_locale'] !== true),
        'the rest as without all',
      );

    const printed = await cli(['timeline', run, '--causality']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /\n6 loader and locale opens of the run not listed \(--all lists them\)\n$/);
    assert.doesNotMatch(printed.stdout, /locale-archive/);
    const all = await cli(['timeline', run, '--causality', '--all']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /locale-archive \[loader\]/);
    assert.match(all.stdout, /\n\(6 loader and locale opens of the run listed, marked \[loader\]\)\n$/);
  });

  it('provd summary leaves them out of the files and counts them', async function () {
    const answer = await request(shared.daemon.url, `/v1/observe/summary?run=${run}`, { headers: auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const events = answer.body['events'] as Json;
    assert.equal(events['loader_locale_opens'], 6);
    assert.equal((events['by_type'] as Json)['file_open'], 6 + 1 + 5 + alsoShown.length, 'counted by type');
    const files = ((answer.body['files'] as Json)['top'] as Json[]).map((file) => file['value']);
    for (const open of loaderLocaleOpens.filter(({ path }) => path !== '/etc/ld.so.cache'))
      assert.ok(!files.includes(open.path), open.path); // ld.so.cache is also written: a file
    for (const path of ['/etc/ld.so.preload', '/tmp/evil.so', deniedLibrary])
      assert.ok(files.includes(path), path);
    const printed = await cli(['summary', run]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(
      printed.stdout,
      /\n {2}left out {5}6 loader and locale opens \(provd timeline --all lists them\)\n/,
    );
  });
});
