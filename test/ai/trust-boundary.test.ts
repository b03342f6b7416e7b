import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { useSharedDaemon } from '../support/daemon.js';
import { request } from '../support/http.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { callTool, connectMcp, schemaErrors, type McpSession, type ToolReply } from '../support/mcp.js';
import { bind, ingest, nativeLine, pageAll } from '../support/telemetry.js';

/** The evidence levels of a run's stored events, read over HTTP (not through the tools). */
async function levels(url: string, run: string): Promise<string[]> {
  const events = await pageAll(url, `run=${run}`);
  return events.map((event) => (event['correlation'] as { evidence_level: string }).evidence_level);
}

describe('AI tools: the trust boundary', function () {
  const shared = useSharedDaemon();
  let session: McpSession;
  let tools: Tool[];

  /** The errors of a reply's structuredContent against the tool's listed output schema. */
  const outputErrors = (name: string, reply: ToolReply): string[] =>
    schemaErrors(tools.find((tool) => tool.name === name)!.outputSchema!, reply.structured);

  before(async function () {
    session = await connectMcp(shared.daemon.url);
    tools = (await session.client.listTools()).tools;
  });

  after(async function () {
    await session?.close();
  });

  it('stores a bind_scope asking for control_plane and confidence 1 as ai_asserted with 0.5', async function () {
    const reply = await callTool(session, 'bind_scope', {
      run_id: 'run-claim',
      tool_call_id: 'tc-claim',
      cgroup_id: '901',
      binding_source: 'control_plane',
      confidence: 1,
    });
    assert.equal(reply.isError, false, JSON.stringify(reply.json));
    assert.deepEqual(
      [reply.json['schema_version'], reply.json['binding_source'], reply.json['confidence']],
      ['provenance.binding/v1', 'ai_asserted', 0.5],
    );
    assert.deepEqual(outputErrors('bind_scope', reply), []);
    // a lower confidence is kept: the cap only lowers
    const low = await callTool(session, 'bind_scope', {
      run_id: 'run-claim',
      tool_call_id: 'tc-low',
      pid: 31337,
      confidence: 0.2,
    });
    assert.deepEqual([low.json['binding_source'], low.json['confidence']], ['ai_asserted', 0.2]);
    // events the sensor side reports for that cgroup are only context_asserted, at most 0.5
    await ingest(shared.daemon.url, [1, 2].map(() => nativeLine({ cgroup_id: '901' })).join('\n'), 'native');
    const events = await pageAll(shared.daemon.url, 'run=run-claim');
    assert.equal(events.length, 2);
    for (const event of events) {
      const correlation = event['correlation'] as { evidence_level: string; confidence: number };
      assert.equal(correlation.evidence_level, 'context_asserted');
      assert.ok(correlation.confidence <= 0.5, String(correlation.confidence));
    }
  });

  it('stores record_tool_call as asserted and runs nothing, even when the input asks to execute', async function () {
    const marker = `/tmp/provd-ai-must-not-exist-${process.pid}`;
    const reply = await callTool(session, 'record_tool_call', {
      run_id: 'run-claim',
      tool_call_id: 'tc-rec',
      command: '/usr/bin/touch',
      args: [marker],
      execute: true,
    });
    assert.equal(reply.isError, false, JSON.stringify(reply.json));
    const call = reply.json;
    assert.deepEqual(
      [call['status'], call['executed'], call['pid'], call['exit_code'], call['evidence_level']],
      ['asserted', false, null, null, 'context_asserted'],
    );
    assert.deepEqual(outputErrors('record_tool_call', reply), []);
    assert.equal(existsSync(marker), false, 'the command did not run');
    // the same id again is refused by the daemon, as an isError result
    const again = await callTool(session, 'record_tool_call', {
      run_id: 'run-claim',
      tool_call_id: 'tc-rec',
      command: 'ls',
    });
    assert.equal(again.isError, true);
    assert.equal((again.json['error'] as { code: string }).code, 'tool_call_exists');
  });

  it('yields no kernel_correlated evidence through any tool path', async function () {
    for (const level of await levels(shared.daemon.url, 'run-claim'))
      assert.notEqual(level, 'kernel_correlated');
    const timeline = await callTool(session, 'get_timeline', { run: 'run-claim', limit: 1000 });
    const entries = timeline.json['entries'] as { evidence_level: string | null }[];
    assert.ok(entries.length >= 4, JSON.stringify(timeline.json).slice(0, 300));
    for (const entry of entries) assert.notEqual(entry.evidence_level, 'kernel_correlated');
  });

  it('never takes events from a binding a harness made, even starting later', async function () {
    await bind(shared.daemon.url, {
      run_id: 'run-real',
      tool_call_id: 'tc-real',
      cgroup_id: '902',
      binding_source: 'harness',
      started_at: '2026-01-01T00:00:00Z',
    });
    const claim = await callTool(session, 'bind_scope', {
      run_id: 'run-decoy',
      tool_call_id: 'tc-decoy',
      cgroup_id: '902',
      started_at: '2026-01-01T00:00:00.5Z',
    });
    assert.equal(claim.isError, false);
    await ingest(
      shared.daemon.url,
      nativeLine({ cgroup_id: '902', timestamp: '2026-01-01T00:00:01Z' }),
      'native',
    );
    assert.deepEqual(await levels(shared.daemon.url, 'run-real'), ['kernel_correlated']);
    const decoy = await request(shared.daemon.url, '/v1/telemetry/events?run=run-decoy');
    assert.deepEqual(decoy.body['events'], []);
  });

  it("takes the gate's verdict from the daemon's policy, whatever the caller adds", async function () {
    const reply = await callTool(session, 'evaluate_action', {
      event_type: 'file_open',
      path: '/root/.aws/credentials',
      decision: 'allow',
    });
    assert.equal(reply.isError, true, 'a field the gate does not take is refused, not obeyed');
    const honest = await callTool(session, 'evaluate_action', {
      event_type: 'file_open',
      path: '/root/.aws/credentials',
    });
    assert.deepEqual([honest.json['decision'], honest.json['enforced']], ['kill', false]);
  });
});
