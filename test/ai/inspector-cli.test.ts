import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { cliPath, useSharedDaemon } from '../support/daemon.js';
import { aiRun, schemaErrors, seedRun } from '../support/mcp.js';

const run = promisify(execFile);
// the Inspector's own entry point, as `npx @modelcontextprotocol/inspector --cli` runs it
const inspector = join(
  packageRoot,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'cli',
  'build',
  'cli.js',
);

describe('provd ai mcp under the MCP Inspector CLI (@modelcontextprotocol/inspector --cli)', function () {
  const shared = useSharedDaemon();
  let tools: Tool[] = [];

  /** Runs one Inspector method against `provd ai mcp`; its stdout parsed as JSON. */
  async function inspect(method: string, ...extra: string[]): Promise<Record<string, unknown>> {
    const args = [inspector, '--cli', process.execPath, cliPath, 'ai', 'mcp', '--url', shared.daemon.url];
    const { stdout } = await run(process.execPath, [...args, '--method', method, ...extra], {
      timeout: 40_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  before(async function () {
    await seedRun(shared.daemon.url);
  });

  it('lists the nine tools with their schemas and read-only hints', async function () {
    tools = (await inspect('tools/list'))['tools'] as Tool[];
    assert.deepEqual(
      tools.map(({ name, annotations }) => `${name}:${String(annotations?.readOnlyHint)}`),
      [
        'verify_run:true',
        'explain:true',
        'get_signals:true',
        'get_timeline:true',
        'list_risks:true',
        'list_events:true',
        'evaluate_action:true',
        'bind_scope:false',
        'record_tool_call:false',
      ],
    );
    for (const tool of tools) assert.equal(tool.outputSchema?.type, 'object', tool.name);
  });

  it('calls a read tool, the gate and a write tool; structuredContent matches each output schema', async function () {
    const schemaOf = (name: string): Tool['outputSchema'] =>
      tools.find((tool) => tool.name === name)?.outputSchema;
    const risks = await inspect('tools/call', '--tool-name', 'list_risks', '--tool-arg', `run=${aiRun}`);
    const riskBody = risks['structuredContent'] as Record<string, unknown>;
    assert.deepEqual(schemaErrors(schemaOf('list_risks')!, riskBody), []);
    assert.deepEqual(
      (riskBody['risks'] as { rule_id: string }[]).map(({ rule_id }) => rule_id),
      ['secret_path', 'private_cidr'],
    );
    const gate = await inspect(
      'tools/call',
      '--tool-name',
      'evaluate_action',
      '--tool-arg',
      'event_type=setuid',
      '--tool-arg',
      'target_id=0',
    );
    const verdict = gate['structuredContent'] as Record<string, unknown>;
    assert.deepEqual(schemaErrors(schemaOf('evaluate_action')!, verdict), []);
    assert.deepEqual([verdict['decision'], verdict['rule_id']], ['quarantine', 'privilege_escalation']);
    const bound = await inspect(
      'tools/call',
      '--tool-name',
      'bind_scope',
      '--tool-arg',
      `run_id=${aiRun}`,
      '--tool-arg',
      'tool_call_id=tc-inspector',
      '--tool-arg',
      'root_pid=4242',
      '--tool-arg',
      'binding_source=control_plane',
      '--tool-arg',
      'confidence=1',
    );
    const binding = bound['structuredContent'] as Record<string, unknown>;
    assert.deepEqual(schemaErrors(schemaOf('bind_scope')!, binding), []);
    assert.deepEqual([binding['binding_source'], binding['confidence']], ['ai_asserted', 0.5]);
  });

  it("lists the same tools over the daemon's POST /mcp (--transport http) and calls one there", async function () {
    const http = async (method: string, ...extra: string[]): Promise<Record<string, unknown>> => {
      const args = [
        inspector,
        '--cli',
        `${shared.daemon.url}/mcp`,
        '--transport',
        'http',
        '--method',
        method,
      ];
      const { stdout } = await run(process.execPath, [...args, ...extra], { timeout: 40_000 });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    assert.deepEqual((await http('tools/list'))['tools'], tools);
    const risks = await http('tools/call', '--tool-name', 'list_risks', '--tool-arg', `run=${aiRun}`);
    assert.deepEqual(
      ((risks['structuredContent'] as Record<string, unknown>)['risks'] as { rule_id: string }[]).map(
        ({ rule_id }) => rule_id,
      ),
      ['secret_path', 'private_cidr'],
    );
    assert.deepEqual((risks['content'] as { type: string; uri?: string }[])[1], {
      type: 'resource_link',
      uri: `${shared.daemon.url}/ui#run=${aiRun}`,
      name: `run ${aiRun}`,
      title: `provd web view: run ${aiRun}`,
      description: "The run's page: its verify verdict, risks, agent session, timeline and causality",
      mimeType: 'text/html',
    });
  });

  it('gets an isError result with the code and message for bad input and an unknown run', async function () {
    const bad = await inspect(
      'tools/call',
      '--tool-name',
      'list_events',
      '--tool-arg',
      `run=${aiRun}`,
      '--tool-arg',
      'limit=5000',
    );
    assert.equal(bad['isError'], true);
    const [block] = bad['content'] as { text: string }[];
    const error = (JSON.parse(block!.text) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'invalid_argument');
    assert.match(error.message, /limit must be an integer/);
    const missing = await inspect('tools/call', '--tool-name', 'verify_run', '--tool-arg', 'run=nope');
    assert.equal(missing['isError'], true);
    assert.match((missing['content'] as { text: string }[])[0]!.text, /"code":"run_not_found"/);
  });
});
