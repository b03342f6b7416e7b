import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import {
  aiRun,
  callTool,
  connectMcp,
  connectMcpHttp,
  errorCode,
  schemaErrors,
  seedRun,
  type McpSession,
} from '../support/mcp.js';
import { pageAll } from '../support/telemetry.js';

const run = aiRun;

describe('POST /mcp (the SDK Streamable HTTP client)', function () {
  const shared = useSharedDaemon();
  let http: McpSession;
  let stdio: McpSession;
  let tools: Tool[];

  before(async function () {
    await seedRun(shared.daemon.url);
    http = await connectMcpHttp(shared.daemon.url);
    stdio = await connectMcp(shared.daemon.url);
    tools = (await http.client.listTools()).tools;
  });

  after(async function () {
    await Promise.all([http?.close(), stdio?.close()]);
  });

  it('lists the same nine tools as `provd ai mcp`, with their schemas and hints', async function () {
    assert.deepEqual(tools, (await stdio.client.listTools()).tools);
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint]),
      [
        ['verify_run', true],
        ['explain', true],
        ['get_signals', true],
        ['get_timeline', true],
        ['list_risks', true],
        ['list_events', true],
        ['evaluate_action', true],
        ['bind_scope', false],
        ['record_tool_call', false],
      ],
    );
    assert.equal(http.client.getServerVersion()?.name, 'provd');
  });

  it("answers each tool with the daemon's body and a link to the run's page in the web view", async function () {
    const calls: [string, Record<string, unknown>][] = [
      ['verify_run', { run }],
      ['get_signals', { run }],
      ['get_timeline', { run, view: 'causality' }],
      ['list_risks', { run }],
      ['list_events', { run, limit: 2 }],
    ];
    const page = `${shared.daemon.url}/ui#run=${run}`;
    for (const [name, args] of calls) {
      const reply = await callTool(http, name, args);
      assert.equal(reply.isError, false, `${name}: ${JSON.stringify(reply.json)}`);
      assert.deepEqual(reply.structured, reply.json, name);
      assert.deepEqual(
        schemaErrors(tools.find((tool) => tool.name === name)!.outputSchema!, reply.structured),
        [],
      );
      assert.deepEqual(reply.links, [page], name);
      // the same answer and link as over stdio
      const overStdio = await callTool(stdio, name, args);
      assert.deepEqual(overStdio.links, [page], name);
      if (name !== 'get_signals') assert.deepEqual(reply.structured, overStdio.structured, name);
    }
    const direct = await request(shared.daemon.url, `/v1/security/risks?run=${run}`);
    assert.deepEqual((await callTool(http, 'list_risks', { run })).structured, direct.body);
    // the page the link names is the web view's
    const html = await fetch(page);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
  });

  it('links nothing for the gate (no stored run) nor for a failure', async function () {
    const gate = await callTool(http, 'evaluate_action', { event_type: 'setuid', target_id: 0 });
    assert.deepEqual(
      [gate.json['decision'], gate.json['rule_id'], gate.links],
      ['quarantine', 'privilege_escalation', []],
    );
    const missing = await callTool(http, 'verify_run', { run: 'no-such-run' });
    assert.deepEqual([missing.isError, errorCode(missing), missing.links], [true, 'run_not_found', []]);
    const bad = await callTool(http, 'list_events', { run, limit: 5000 });
    assert.deepEqual([bad.isError, errorCode(bad)], [true, 'invalid_argument']);
  });

  it('stores what the write tools send only as ai_asserted context, and links the run they named', async function () {
    const bound = await callTool(http, 'bind_scope', {
      run_id: 'run-http-claim',
      tool_call_id: 'tc-http',
      cgroup_id: '902',
      binding_source: 'control_plane',
      confidence: 1,
    });
    assert.equal(bound.isError, false, JSON.stringify(bound.json));
    assert.deepEqual([bound.json['binding_source'], bound.json['confidence']], ['ai_asserted', 0.5]);
    assert.deepEqual(bound.links, [`${shared.daemon.url}/ui#run=run-http-claim`]);
    const recorded = await callTool(http, 'record_tool_call', { command: 'rm', args: ['-rf', '/tmp/x'] });
    assert.equal(recorded.isError, false, JSON.stringify(recorded.json));
    const recordedRun = recorded.json['run_id'] as string;
    assert.equal(typeof recordedRun, 'string');
    // the daemon's generated run id, told in the answer: its page
    assert.deepEqual(recorded.links, [`${shared.daemon.url}/ui#run=${encodeURIComponent(recordedRun)}`]);
    // nothing ran: a stored tool call, no event
    assert.deepEqual(await pageAll(shared.daemon.url, `run=${encodeURIComponent(recordedRun)}`), []);
  });

  it("judges a watched caller's tool calls as its own requests: the writes pass only as ai_asserted, counted", async function () {
    // the kernel's connect mark rewrites a watched process's source address to 127.0.0.2
    // (src/sensor/connect-mark.ts): a client bound to it is such a caller, sensor or not
    const aiAsserted = async (): Promise<number> => {
      const health = await request(shared.daemon.url, '/v1/health');
      const checks = health.body['checks'] as Record<string, { ai_asserted_writes: number }>;
      return checks['watched_callers']!.ai_asserted_writes;
    };
    const before = await aiAsserted();
    const call = (name: string, args: Record<string, unknown>): Promise<MarkedAnswer> =>
      postFromMarked(shared.daemon.port, '/mcp', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      });
    const bound = await call('bind_scope', { run_id: 'run-marked', tool_call_id: 'tc-m', pid: 4343 });
    const recorded = await call('record_tool_call', { run_id: 'run-marked', command: 'ls' });
    for (const answer of [bound, recorded]) {
      const result = answer.body['result'] as {
        isError?: boolean;
        structuredContent: Record<string, unknown>;
      };
      assert.equal(result.isError, undefined, JSON.stringify(answer.body));
    }
    assert.equal(await aiAsserted(), before + 2);
    // the same caller's own bind, claiming the control plane, is refused
    const direct = await postFromMarked(shared.daemon.port, '/v1/telemetry/bind', {
      run_id: 'run-marked',
      tool_call_id: 'tc-m2',
      pid: 4343,
    });
    assert.equal(direct.status, 403);
  });

  it('refuses an unknown tool with a JSON-RPC error, and goes on serving', async function () {
    await assert.rejects(
      http.client.callTool({ name: 'drop_tables', arguments: {} }),
      /unknown tool "drop_tables"; the tools are verify_run, explain/,
    );
    assert.equal((await callTool(http, 'verify_run', { run })).isError, false);
  });
});

interface MarkedAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs `body` as JSON to `path` on the loopback `port` from 127.0.0.2, as a marked connection comes. */
function postFromMarked(port: number, path: string, body: unknown): Promise<MarkedAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const sent = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers, localAddress: '127.0.0.2' },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(JSON.stringify(body));
  });
}
