import assert from 'node:assert/strict';
import { useSharedDaemon } from '../support/daemon.js';
import { callTool, connectMcpHttp, errorCode, type McpSession } from '../support/mcp.js';

describe('POST /mcp with a token and --mcp-read-only, and the tools a client names', function () {
  const token = 'mcp-http-token';
  const shared = useSharedDaemon({ authToken: token, args: ['--mcp-read-only'] });
  let session: McpSession;

  before(async function () {
    session = await connectMcpHttp(shared.daemon.url, { authorization: `Bearer ${token}` });
  });

  after(async function () {
    await session?.close();
  });

  it('lists the reads and the gate, not bind_scope or record_tool_call', async function () {
    const { tools } = await session.client.listTools();
    assert.deepEqual(
      tools.map(({ name }) => name),
      [
        'verify_run',
        'explain',
        'get_signals',
        'get_timeline',
        'list_risks',
        'list_events',
        'evaluate_action',
      ],
    );
  });

  it('refuses a call to a hidden write as an unknown tool, and stores nothing', async function () {
    for (const [name, args] of [
      ['bind_scope', { run_id: 'run-ro', tool_call_id: 'tc-ro', pid: 4242 }],
      ['record_tool_call', { run_id: 'run-ro', command: 'ls' }],
    ] as const) {
      await assert.rejects(
        session.client.callTool({ name, arguments: args }),
        new RegExp(`unknown tool "${name}"; the tools are verify_run, .*evaluate_action$`),
      );
    }
    const stored = await fetch(`${shared.daemon.url}/v1/graph/verify?run=run-ro`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(stored.status, 404);
  });

  it('lists and serves only the tools a client names with ?tools=, among those the daemon serves', async function () {
    const narrow = await connectMcpHttp(
      shared.daemon.url,
      { authorization: `Bearer ${token}` },
      '/mcp?tools=list_risks,evaluate_action',
    );
    try {
      const { tools } = await narrow.client.listTools();
      assert.deepEqual(
        tools.map(({ name }) => name),
        ['list_risks', 'evaluate_action'],
      );
      const gate = await callTool(narrow, 'evaluate_action', { event_type: 'ptrace' });
      assert.equal(gate.json['decision'], 'quarantine');
      await assert.rejects(
        narrow.client.callTool({ name: 'verify_run', arguments: { run: 'run-ro' } }),
        /unknown tool "verify_run"; the tools are list_risks, evaluate_action$/,
      );
    } finally {
      await narrow.close();
    }
    const refused: [string, RegExp][] = [
      [
        'tools=bind_scope',
        /tools names "bind_scope", which this daemon does not serve; it serves verify_run,/,
      ],
      ['tools=list_risks,drop_tables', /tools names "drop_tables"/],
      ['tools=', /tools names ""/],
      ['tools=list_risks&tools=verify_run', /tools is given more than once/],
    ];
    for (const [query, message] of refused) {
      const answer = await fetch(`${shared.daemon.url}/mcp?${query}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(answer.status, 400, query);
      const { error } = (await answer.json()) as { error: { code: string; message: string } };
      assert.equal(error.code, 'invalid_argument', query);
      assert.match(error.message, message, query);
    }
  });

  it('serves the reads with the token: a run the daemon does not hold is run_not_found', async function () {
    const reply = await callTool(session, 'list_risks', { run: 'run-ro' });
    assert.deepEqual([reply.isError, errorCode(reply)], [true, 'run_not_found']);
    const gate = await callTool(session, 'evaluate_action', { event_type: 'file_open', path: '/etc/shadow' });
    assert.equal(gate.json['decision'], 'kill');
  });

  it('answers 401 without the token or with a wrong one, as every other path', async function () {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const authorization of [undefined, 'Bearer wrong-token']) {
      const answer = await fetch(`${shared.daemon.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, ...(authorization && { authorization }) },
        body: initialize,
      });
      assert.equal(answer.status, 401, authorization);
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer realm="provd"/);
      assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'unauthorized');
    }
    await assert.rejects(
      connectMcpHttp(shared.daemon.url, { authorization: 'Bearer wrong-token' }),
      /"code":"unauthorized","message":"the bearer token is wrong"/,
    );
  });
});
