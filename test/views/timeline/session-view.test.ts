/**
 * One view of an agent session on a real daemon and a real DuckDB: a Claude Code session posted to
 * POST /v1/hooks/claude from its captured payloads, its first tool call's processes ingested as
 * native telemetry under a binding that carries its id. GET /v1/timeline?view=session, `provd
 * timeline` and `provd summary` must tell it as prompt -> tool call -> processes -> events, with
 * each link's evidence, the denied call with its reason and nothing run, the loader's and locale's
 * opens counted and listed only when asked, and hostile text kept as data.
 */
import assert from 'node:assert/strict';
import { useSharedDaemon } from '../../support/daemon.js';
import { runCli } from '../../support/cli.js';
import { request } from '../../support/http.js';
import { nativeLine } from '../../support/telemetry.js';
import {
  deniedCall,
  deniedLibrary,
  deniedLibraryPolicy,
  hostileCommand,
  hostilePrompt,
  loaderLocaleOpens,
  neverFolded,
  ranCall,
  storeAgentSession,
} from '../../support/agent-session.js';

type Json = Record<string, unknown>;

const token = 'session-view-token';
const auth = { authorization: `Bearer ${token}` };
const run = 'session-view-run';

const policyFile = deniedLibraryPolicy();

describe('the session view of an agent session', function () {
  const shared = useSharedDaemon({ authToken: token, args: ['--keep-hook-text', '--policy', policyFile] });

  before(async function () {
    await storeAgentSession(shared.daemon.url, auth, run);
    // cat opens a shared object the policy denies: judged, so shown with its decision
    const denied = nativeLine({
      event_type: 'file_open',
      timestamp: '2026-01-01T00:00:01.100Z',
      pid: 5001,
      tgid: 5001,
      ppid: 5000,
      comm: 'cat',
      cgroup_id: '9001',
      path: deniedLibrary,
      flags: 'O_RDONLY|O_CLOEXEC',
    });
    const ingested = await request(shared.daemon.url, '/v1/telemetry/ingest?format=native', {
      method: 'POST',
      headers: auth,
      body: denied,
    });
    assert.equal(ingested.body['accepted'], 1, JSON.stringify(ingested.body));
    // a run no hook wrote: a recorded tool call, asserted
    const recorded = await request(shared.daemon.url, '/v1/record', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ run_id: 'plain-run', tool_call_id: 'tc-1', command: 'make', execute: false }),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.body));
  });

  const session = async (query = ''): Promise<Json> => {
    const answer = await request(shared.daemon.url, `/v1/timeline?run=${run}&view=session${query}`, {
      headers: auth,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  const cli = (args: string[]): ReturnType<typeof runCli> =>
    runCli(args, { env: { PROVD_URL: shared.daemon.url, PROVD_AUTH_TOKEN: token } });

  it('tells the session as prompt -> tool call -> processes -> events, each link with its evidence level', async function () {
    const body = await session();
    assert.deepEqual(
      [body['schema_version'], body['view'], body['agent_session'], body['agents'], body['all']],
      ['provenance.timeline/v1', 'session', true, ['claude'], false],
    );
    const items = body['items'] as Json[];
    const calls = items.filter((item) => item['item'] === 'tool_call');
    // the order the daemon stored them in: start, prompt, three tool calls, the denied one, stop, end
    assert.deepEqual(
      items.map((item) => item['event'] ?? `${String(item['tool_call_id'])}:${String(item['status'])}`),
      [
        'session_start',
        'user_prompt',
        `${ranCall}:completed`,
        ...calls.slice(1, 3).map((call) => `${String(call['tool_call_id'])}:completed`),
        `${deniedCall}:denied`,
        'stop',
        'session_end',
      ],
    );
    assert.ok(items.every((item) => item['evidence_level'] === 'context_asserted'));
    const indexes = items.map((item) => item['index'] as number);
    assert.deepEqual(
      indexes,
      [...indexes].sort((a, b) => a - b),
    );
    // the prompt as the agent sent it (the daemon keeps hook text here), with its hash
    const prompt = items[1]!['text'] as Json;
    assert.equal(prompt['text'], hostilePrompt);
    assert.match(String(prompt['hash']), /^sha256:/);

    const ran = calls[0]!;
    assert.equal(ran['tool_name'], 'Bash');
    assert.deepEqual(
      [(ran['decision'] as Json)['answered'], (ran['decision'] as Json)['rule_id']],
      ['allow', 'default_allow'],
    );
    assert.deepEqual(JSON.parse(String((ran['input'] as Json)['text'])), {
      command: hostileCommand,
      description: 'greeting',
    });
    assert.notEqual(ran['result'], null, 'its PostToolUse result');
    assert.equal(typeof ran['duration_ms'], 'number');
    assert.equal(ran['ran'], true);
    const processes = ran['processes'] as Json[];
    assert.deepEqual(
      processes.map((process) => [process['tgid'], process['ppid'], process['comm'], process['link']]),
      [
        [5000, 4000, 'bash', { evidence_level: 'kernel_correlated', method: 'cgroup', confidence: 0.98 }],
        [5001, 5000, 'cat', { evidence_level: 'kernel_correlated', method: 'cgroup', confidence: 0.98 }],
      ],
    );
    assert.deepEqual(processes[0]!['argv'], ['bash', '-c', hostileCommand]);
    // under each process, what it did in time order, loader and locale opens folded
    const listed = (process: Json): string[] =>
      (process['events'] as Json[]).map((event) => `${String(event['type'])} ${String(event['object'])}`);
    assert.deepEqual(listed(processes[0]!), [
      `execve bash -c ${hostileCommand}`,
      'file_write /work/proj/greeting.txt',
    ]);
    assert.deepEqual(listed(processes[1]!), [
      'execve cat greeting.txt',
      'file_open /work/proj/greeting.txt',
      ...neverFolded.map((open) => `${open.event_type ?? 'file_open'} ${open.path}`),
      'dns_query example.com',
      'network_connect 93.184.216.34:443',
      'process_exit exit 0',
      `file_open ${deniedLibrary}`,
    ]);
    const judged = (processes[1]!['events'] as Json[]).at(-1)!;
    assert.deepEqual(
      [judged['decision'], judged['loader_locale']],
      [{ decision: 'deny', rule_id: 'no-libfoo' }, false],
    );
    assert.deepEqual(
      processes.map((process) => process['loader_locale_opens']),
      [4, 2],
    );
    assert.deepEqual(ran['counts'], {
      events: 2 + 4 + 1 + 2 + neverFolded.length + 4 + 1,
      loader_locale_opens: loaderLocaleOpens.length,
      omitted_events: 0,
    });

    // the denied call: its decision and reason, and nothing ran
    const denied = calls.find((call) => call['tool_call_id'] === deniedCall)!;
    const decision = denied['decision'] as Json;
    assert.equal(decision['answered'], 'deny');
    assert.equal(decision['rule_id'], 'secret_path');
    assert.match(String(decision['reason']), /\/etc\/shadow/);
    assert.deepEqual([denied['ran'], denied['processes'], denied['result']], [false, [], null]);

    const counts = body['counts'] as Json;
    assert.deepEqual(counts['tool_calls'], {
      total: 4,
      allowed: 3,
      denied: 1,
      failed: 0,
      completed: 3,
      no_result: 0,
    });
    assert.deepEqual(
      [counts['prompts'], counts['loader_locale_opens'], counts['other_hook_events']],
      [1, loaderLocaleOpens.length, 1],
    );
  });

  it('lists the loader and locale opens with all=true, marked, and nothing else changes', async function () {
    const folded = await session();
    const body = await session('&all=true');
    assert.equal(body['all'], true);
    const ran = (body['items'] as Json[]).find((item) => item['tool_call_id'] === ranCall)!;
    const events = (ran['processes'] as Json[]).flatMap((process) => process['events'] as Json[]);
    assert.deepEqual(
      events.filter((event) => event['loader_locale'] === true).map((event) => event['object']),
      [...loaderLocaleOpens.slice(0, 4), ...loaderLocaleOpens.slice(4)].map((open) => open.path),
    );
    const foldedRan = (folded['items'] as Json[]).find((item) => item['tool_call_id'] === ranCall)!;
    const shown = (foldedRan['processes'] as Json[]).flatMap((process) => process['events'] as Json[]);
    assert.deepEqual(
      events.filter((event) => event['loader_locale'] === false),
      shown,
    );
    // events are listed in time order
    const times = events.map((event) => String(event['time']));
    assert.deepEqual(times, [...times].sort());
  });

  it('refuses paging and a bad all= with the session view; a run no hook wrote is no session', async function () {
    const refused = async (query: string): Promise<Json> => {
      const answer = await request(shared.daemon.url, `/v1/timeline?${query}`, { headers: auth });
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      return answer.body['error'] as Json;
    };
    assert.equal(
      (await refused(`run=${run}&view=session&limit=5`))['message'],
      'limit is not accepted with view=session: the session is not paged',
    );
    assert.match(String((await refused(`run=${run}&view=session&all=yes`))['message']), /^all /);
    const plain = await request(shared.daemon.url, '/v1/timeline?run=plain-run&view=session', {
      headers: auth,
    });
    assert.deepEqual(
      [plain.body['agent_session'], plain.body['items'], plain.body['agents']],
      [false, [], []],
    );
    const missing = await request(shared.daemon.url, '/v1/timeline?run=nope&view=session', { headers: auth });
    assert.equal(missing.status, 404);
  });

  it('provd timeline prints the session as a tree, the fold as a count; --all lists the opens', async function () {
    const printed = await cli(['timeline', run]);
    assert.equal(printed.code, 0, printed.stderr);
    const text = printed.stdout;
    assert.match(
      text,
      /^agent session session-view-run \(claude\): 1 prompt, 4 tool calls: 3 allowed \(3 completed\), 1 denied\n/,
    );
    assert.ok(text.includes(`prompt: ${hostilePrompt}  [context_asserted]`), text);
    assert.match(
      text,
      new RegExp(
        `tool call ${ranCall}: Bash allowed \\(default_allow\\), completed, \\d+ ms  \\[context_asserted\\]`,
      ),
    );
    assert.match(
      text,
      /process 5000 \(ppid 4000\) bash -c echo hello .*\[kernel_correlated by cgroup 0\.98\]/,
    );
    assert.match(text, /bash\[5000\] file_write \/work\/proj\/greeting\.txt {2}\[kernel_correlated\]/);
    assert.match(text, /\+ 4 loader and locale opens \(--all lists them\)/);
    assert.ok(
      text.includes(`cat[5001] file_open ${deniedLibrary}  [kernel_correlated] [deny by no-libfoo]`),
      text,
    );
    assert.match(text, /\+ 2 loader and locale opens \(--all lists them\)/);
    assert.doesNotMatch(text, /file_open \/etc\/ld\.so\.cache/, 'the read-only ld.so.cache open is folded');
    assert.match(
      text,
      /cat\[5001\] file_write \/etc\/ld\.so\.cache {2}\[kernel_correlated\]/,
      'a write is never folded',
    );
    assert.match(
      text,
      new RegExp(
        `tool call ${deniedCall}: Bash DENIED \\(kill by secret_path: [^\\n]*/etc/shadow[^\\n]*\\)  \\[context_asserted\\]\\n[^\\n]*input: [^\\n]*\\n[^\\n]*nothing ran: no process carries its id\\n`,
      ),
    );

    const all = await cli(['timeline', run, '--all']);
    assert.equal(all.code, 0, all.stderr);
    for (const open of loaderLocaleOpens)
      assert.ok(all.stdout.includes(`file_open ${open.path}  [kernel_correlated] [loader]`), open.path);
    assert.match(all.stdout, /\(4 loader and locale opens listed, marked \[loader\]\)/);

    // --json stays the table unless --session is asked; a run no hook wrote prints its table
    const json = await cli(['timeline', run, '--json']);
    assert.equal((JSON.parse(json.stdout) as Json)['view'], 'table');
    const sessionJson = await cli(['timeline', run, '--json', '--session', '--all']);
    assert.deepEqual(JSON.parse(sessionJson.stdout), await session('&all=true'));
    const plain = await cli(['timeline', 'plain-run']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^TIME \(UTC\)\s+KIND/);
    // the tree takes --all too (loader-opens.test.ts checks what it lists)
    const tree = await cli(['timeline', run, '--all', '--causality']);
    assert.equal(tree.code, 0, tree.stderr);
  });

  it('provd summary adds the prompts, tool calls by decision, what each touched, the denied reasons', async function () {
    const printed = await cli(['summary', run]);
    assert.equal(printed.code, 0, printed.stderr);
    const text = printed.stdout;
    assert.match(text, /^agent session\s+claude$/m);
    assert.match(text, /^ {2}prompts\s+1$/m);
    assert.match(text, /^ {2}tool calls\s+4 tool calls: 3 allowed \(3 completed\), 1 denied$/m);
    assert.ok(
      text.includes(
        `${ranCall} Bash: allowed, completed: 2 processes (bash, cat); ` +
          'wrote /work/proj/greeting.txt, /etc/ld.so.cache; ' +
          'read /work/proj/greeting.txt, /usr/lib/x86_64-linux-gnu/libc.so.6, /tmp/evil.so and 4 more; ' +
          'dns example.com; connected to 93.184.216.34:443; + 6 loader and locale opens',
      ),
      text,
    );
    assert.match(
      text,
      new RegExp(`${deniedCall} Bash: DENIED \\(kill by secret_path: .*/etc/shadow.*\\); nothing ran`),
    );
    assert.match(text, /^ {2}folded\s+6 loader and locale opens \(provd timeline --all lists them\)$/m);
    // a run no hook wrote reads as before
    const plain = await cli(['summary', 'plain-run']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.doesNotMatch(plain.stdout, /agent session/);
  });
});
