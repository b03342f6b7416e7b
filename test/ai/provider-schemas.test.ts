import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openapiDocument } from '../../src/daemon/openapi.js';
import { runCli } from '../support/cli.js';
import { useSharedDaemon } from '../support/daemon.js';
import { connectMcp } from '../support/mcp.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

type Definition = Record<string, unknown>;

async function printed(provider: string): Promise<Definition[]> {
  const { code, stdout, stderr } = await runCli(['ai', 'tools', '--provider', provider]);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as Definition[];
}

describe('provd ai tools --provider (provider tool schemas)', function () {
  const shared = useSharedDaemon();
  let listed: Tool[];

  before(async function () {
    const session = await connectMcp(shared.daemon.url);
    try {
      listed = (await session.client.listTools()).tools;
    } finally {
      await session.close();
    }
  });

  it("prints the MCP server's own tools/list, tool for tool", async function () {
    assert.deepEqual(await printed('mcp'), JSON.parse(JSON.stringify(listed)));
    const { stdout } = await runCli(['ai', 'tools', '--json']);
    assert.deepEqual(JSON.parse(stdout), JSON.parse(JSON.stringify(listed)));
  });

  it('gives Anthropic and OpenAI the same nine tools, descriptions and input schemas as MCP lists', async function () {
    const anthropic = await printed('anthropic');
    const openai = await printed('openai');
    assert.deepEqual(
      anthropic.map(({ name, description, input_schema }) => ({ name, description, input_schema })),
      listed.map(({ name, description, inputSchema }) => ({ name, description, input_schema: inputSchema })),
    );
    assert.deepEqual(Object.keys(anthropic[0]!).sort(), ['description', 'input_schema', 'name']);
    for (const [k, tool] of openai.entries()) {
      assert.equal(tool['type'], 'function');
      assert.deepEqual(Object.keys(tool).sort(), ['function', 'type']);
      const fn = tool['function'] as Definition;
      assert.deepEqual(fn, {
        name: listed[k]!.name,
        description: listed[k]!.description,
        parameters: listed[k]!.inputSchema,
      });
    }
  });

  it('has names every provider accepts and input schemas that compile as strict JSON Schema, closed objects with no top-level combinator', function () {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const tool of listed) {
      // Anthropic: ^[a-zA-Z0-9_-]{1,64}$; OpenAI: ^[a-zA-Z0-9_-]{1,64}$
      assert.match(tool.name, /^[a-zA-Z0-9_-]{1,64}$/);
      const schema = tool.inputSchema as Definition;
      assert.equal(schema['type'], 'object', tool.name);
      assert.equal(schema['additionalProperties'], false, tool.name);
      for (const combinator of ['anyOf', 'oneOf', 'allOf', 'not', '$ref'])
        assert.equal(schema[combinator], undefined, `${tool.name}: ${combinator} at the top level`);
      assert.doesNotThrow(() => ajv.compile(schema), tool.name);
      assert.doesNotThrow(() => ajv.compile(tool.outputSchema!), `${tool.name} output`);
      assert.ok(!JSON.stringify(schema).includes('"$ref"'), `${tool.name}: input schemas are self-contained`);
    }
  });

  it('takes each input schema from the route it calls: the same fields as the OpenAPI document', function () {
    const parameters = (path: string, verb: 'get' | 'post'): string[] => {
      const operation = openapiDocument().paths[path]?.[verb];
      return ((operation?.parameters ?? []) as { name: string; in: string }[])
        .filter((parameter) => parameter.in === 'query')
        .map(({ name }) => name)
        .sort();
    };
    const fields = (name: string): string[] =>
      Object.keys(listed.find((tool) => tool.name === name)!.inputSchema.properties ?? {}).sort();
    assert.deepEqual(fields('verify_run'), parameters('/v1/graph/verify', 'get'));
    assert.deepEqual(fields('explain'), parameters('/v1/graph/explain', 'get'));
    assert.deepEqual(fields('get_signals'), parameters('/v1/signals', 'get'));
    assert.deepEqual(fields('get_timeline'), parameters('/v1/timeline', 'get'));
    assert.deepEqual(fields('list_risks'), parameters('/v1/security/risks', 'get'));
    assert.deepEqual(fields('list_events'), parameters('/v1/telemetry/events', 'get'));
    const bodyFields = (component: string): string[] =>
      Object.keys(openapiDocument().components.schemas[component]?.['properties'] as object).sort();
    assert.deepEqual(fields('evaluate_action'), bodyFields('GateRequest'));
    assert.deepEqual(fields('bind_scope'), bodyFields('BindRequest'));
    assert.deepEqual(fields('record_tool_call'), bodyFields('RecordRequest'));
  });

  it('refuses an unknown provider with exit 2, and lists the tools as a table by default', async function () {
    const bad = await runCli(['ai', 'tools', '--provider', 'gemini']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /--provider must be one of anthropic, openai, mcp, got "gemini"/);
    const table = await runCli(['ai', 'tools']);
    assert.equal(table.code, 0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^TOOL +KIND +READ-ONLY +TITLE$/);
    assert.deepEqual(
      rows.map((row) => row.split(/ +/).slice(0, 3).join(' ')),
      [
        'verify_run read yes',
        'explain read yes',
        'get_signals read yes',
        'get_timeline read yes',
        'list_risks read yes',
        'list_events read yes',
        'evaluate_action gate yes',
        'bind_scope write no',
        'record_tool_call write no',
      ],
    );
  });
});
