import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import {
  aiRun,
  callTool,
  connectMcp,
  errorCode,
  schemaErrors,
  seedRun,
  type McpSession,
} from '../support/mcp.js';

const run = aiRun;

describe('provd ai mcp (the SDK client over stdio)', function () {
  const shared = useSharedDaemon();
  let session: McpSession;
  let tools: Tool[];

  before(async function () {
    await seedRun(shared.daemon.url);
    session = await connectMcp(shared.daemon.url);
    tools = (await session.client.listTools()).tools;
  });

  after(async function () {
    await session?.close();
  });

  it('lists the nine tools with their annotations: only the two writes are not read-only', function () {
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
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok((tool.description ?? '').length > 200, `${tool.name} tells a model when to use it`);
    }
    assert.equal(session.client.getServerVersion()?.name, 'provd');
  });

  it('answers each read tool with the daemon body as text and as structuredContent matching the output schema', async function () {
    const events = await callTool(session, 'list_events', { run, limit: 2 });
    const firstEvent = (events.structured?.['events'] as { id: string }[])[0]!.id;
    const risks = await callTool(session, 'list_risks', { run });
    const risk = (risks.structured?.['risks'] as { risk_id: string }[])[0]!.risk_id;
    const calls: [string, Record<string, unknown>, string][] = [
      ['verify_run', { run }, 'provenance.verify/v1'],
      ['explain', { run }, 'provenance.explain/v1'],
      ['explain', { event: firstEvent }, 'provenance.explain/v1'],
      ['explain', { risk }, 'provenance.explain/v1'],
      ['get_signals', { run }, 'provenance.signals/v1'],
      ['get_timeline', { run }, 'provenance.timeline/v1'],
      ['get_timeline', { run, view: 'causality' }, 'provenance.timeline/v1'],
      ['list_risks', { run, limit: 1 }, 'provenance.security_risks/v1'],
      ['list_events', { run, type: 'execve', cursor: null }, 'provenance.telemetry_events/v1'],
    ];
    for (const [name, args, version] of calls) {
      const reply = await callTool(session, name, args);
      assert.equal(reply.isError, false, `${name}: ${JSON.stringify(reply.json)}`);
      assert.equal(reply.json['schema_version'], version, name);
      assert.deepEqual(reply.structured, reply.json, `${name}: the text block holds the same JSON`);
      const schema = tools.find((tool) => tool.name === name)!.outputSchema!;
      assert.deepEqual(schemaErrors(schema, reply.structured), [], name);
    }
    // the same answers the daemon gives over HTTP
    const direct = await request(shared.daemon.url, `/v1/security/risks?run=${run}`);
    assert.deepEqual(risks.structured, direct.body);
    assert.deepEqual(
      (risks.structured?.['risks'] as { rule_id: string }[]).map(({ rule_id }) => rule_id),
      ['secret_path', 'private_cidr'],
    );
  });

  it('pages list_events with the cursor the previous page named', async function () {
    const first = await callTool(session, 'list_events', { run, limit: 2 });
    const cursor = first.structured?.['next_cursor'];
    assert.equal(typeof cursor, 'string');
    const second = await callTool(session, 'list_events', { run, limit: 2, cursor });
    assert.equal(second.isError, false);
    assert.equal((second.structured?.['events'] as unknown[]).length, 1);
    assert.equal(second.structured?.['has_more'], false);
  });

  it('returns the four gate decisions from the daemon engine, and the gate stores nothing', async function () {
    const before = await request(shared.daemon.url, `/v1/telemetry/events?run=${run}&limit=1000`);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ event_type: 'execve', command: 'ls', args: ['-la'] }, 'allow', 'default_allow'],
      [{ event_type: 'network_connect', dst_ip: '192.168.1.10' }, 'deny', 'private_cidr'],
      [
        { event_type: 'execve', command: 'curl', args: ['http://169.254.169.254/'] },
        'quarantine',
        'metadata_ip',
      ],
      [{ event_type: 'file_open', path: '/etc/shadow' }, 'kill', 'secret_path'],
    ];
    const schema = tools.find((tool) => tool.name === 'evaluate_action')!.outputSchema!;
    for (const [action, decision, rule] of cases) {
      const reply = await callTool(session, 'evaluate_action', action);
      assert.equal(reply.isError, false, JSON.stringify(reply.json));
      assert.deepEqual(
        [reply.json['decision'], reply.json['rule_id'], reply.json['enforced']],
        [decision, rule, false],
      );
      assert.deepEqual(schemaErrors(schema, reply.structured), [], decision);
    }
    const after = await request(shared.daemon.url, `/v1/telemetry/events?run=${run}&limit=1000`);
    assert.deepEqual(after.body, before.body);
  });

  it('answers bad input to every tool with an isError result naming the field, never a crash', async function () {
    const cases: [string, unknown, string, RegExp][] = [
      ['verify_run', {}, 'invalid_argument', /run is required/],
      ['verify_run', { run: 5 }, 'invalid_argument', /run must be a string/],
      ['explain', {}, 'invalid_argument', /explain needs one of/],
      ['explain', { event: 'e1', risk: 'r1' }, 'invalid_argument', /explain takes one node/],
      ['get_signals', { run: null }, 'invalid_argument', /run is required/],
      ['get_timeline', { run, view: 'tree' }, 'invalid_argument', /view must be/],
      ['get_timeline', { run, view: 'causality', limit: 5 }, 'invalid_argument', /limit/],
      ['list_risks', { run, limit: 0 }, 'invalid_argument', /limit must be an integer/],
      ['list_risks', { run, cursor: 'not-a-cursor' }, 'invalid_cursor', /cursor/],
      ['list_events', { run, type: 'bogus' }, 'invalid_argument', /type must be/],
      [
        'list_events',
        { run, extra: 1 },
        'invalid_argument',
        /unknown field "extra" in the list_events input/,
      ],
      ['evaluate_action', {}, 'invalid_argument', /event_type is required/],
      ['evaluate_action', { event_type: 'execve', command: ['ls'] }, 'invalid_argument', /command must be/],
      ['bind_scope', { run_id: run }, 'invalid_argument', /tool_call_id is required/],
      [
        'bind_scope',
        { run_id: run, tool_call_id: 'tc-x' },
        'invalid_argument',
        /process_id, container_id, cgroup_id, pid/,
      ],
      ['record_tool_call', {}, 'invalid_argument', /command is required/],
      ['record_tool_call', { command: 'ls', args: 'ls -la' }, 'invalid_argument', /args must be/],
    ];
    for (const [name, args, code, message] of cases) {
      const reply = await callTool(session, name, args);
      assert.equal(reply.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.equal(reply.structured, undefined);
      assert.equal(errorCode(reply), code, `${name} ${JSON.stringify(args)}: ${JSON.stringify(reply.json)}`);
      assert.match((reply.json['error'] as { message: string }).message, message, name);
      assert.equal(reply.json['schema_version'], 'provenance.error/v1');
    }
    // the server is still serving
    assert.equal((await callTool(session, 'verify_run', { run })).isError, false);
  });

  it("passes the daemon's own errors through: an unknown run is run_not_found", async function () {
    for (const name of ['verify_run', 'get_signals', 'list_risks', 'list_events', 'get_timeline']) {
      const reply = await callTool(session, name, { run: 'no-such-run' });
      assert.equal(reply.isError, true, name);
      assert.equal(errorCode(reply), 'run_not_found', name);
    }
  });

  it('refuses an unknown tool with a JSON-RPC error that lists the tools', async function () {
    await assert.rejects(
      session.client.callTool({ name: 'drop_tables', arguments: {} }),
      /unknown tool "drop_tables"; the tools are verify_run, explain/,
    );
  });

  it('wrote its start line and nothing alarming to stderr', function () {
    assert.match(
      session.stderr(),
      /^provd ai mcp: serving 9 tools for the daemon at http:\/\/127\.0\.0\.1:\d+\n/,
    );
  });
});
