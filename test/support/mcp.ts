/**
 * A real MCP client for the tests: the SDK's own Client over stdio, spawning `provd ai mcp` as a
 * user's MCP host would, with what the server wrote to stderr kept for assertions.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/shared/schema/json-object.js';
import { cliPath } from './daemon.js';
import { bind, ingest, nativeLine } from './telemetry.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** An SDK client connected to a `provd ai mcp` child. */
export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `provd ai mcp --url URL` with `env` (PROVD_AUTH_TOKEN, ...) and completes the handshake. */
export async function connectMcp(url: string, env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'ai', 'mcp', '--url', url],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'provd-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/**
 * Connects the SDK's Streamable HTTP client to the daemon's POST /mcp (`path`: with a query of its
 * own), with `headers` on each request.
 */
export async function connectMcpHttp(
  url: string,
  headers: Record<string, string> = {},
  path = '/mcp',
): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(path, url), { requestInit: { headers } });
  const client = new Client({ name: 'provd-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => '', close: () => client.close() };
}

/** A tool call's result as the tests read it: the parsed text block beside the structured content. */
export interface ToolReply {
  isError: boolean;
  /** The first text block, parsed as JSON. */
  json: Record<string, unknown>;
  structured: Record<string, unknown> | undefined;
  /** The URIs of the resource_link blocks after it (the web view's page, over HTTP). */
  links: string[];
}

/** Calls a tool and parses its one text block; resource links may follow it, nothing else. */
export async function callTool(session: McpSession, name: string, args: unknown): Promise<ToolReply> {
  const result = (await session.client.callTool({
    name,
    arguments: args as Record<string, unknown>,
  })) as CallToolResult;
  const [block, ...rest] = result.content;
  if (block?.type !== 'text') throw new Error(`${name}: no text block first`);
  const links = rest.map((link) => {
    if (link.type !== 'resource_link') throw new Error(`${name}: a ${link.type} block after the text`);
    return link.uri;
  });
  return {
    isError: result.isError === true,
    json: JSON.parse(block.text) as Record<string, unknown>,
    structured: result.structuredContent,
    links,
  };
}

/** The daemon error code an isError reply carries. */
export function errorCode(reply: ToolReply): string | undefined {
  return (reply.json['error'] as { code?: string } | undefined)?.code;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);

/** What is wrong with `value` against a tool's output (or input) schema; empty when it validates. */
export function schemaErrors(schema: JsonObject, value: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}

/** The run seedRun stores. */
export const aiRun = 'run-ai';

/**
 * A run with a harness binding and three events the default policy judges: an exec (allowed), a
 * secret read (kill) and a connection to a private address (deny).
 */
export async function seedRun(url: string): Promise<void> {
  await bind(url, { run_id: aiRun, tool_call_id: 'tc-1', cgroup_id: '777', binding_source: 'harness' });
  const lines = [
    nativeLine({ argv: ['sh', '-c', 'cat ~/.ssh/id_rsa'] }),
    nativeLine({
      event_type: 'file_open',
      path: '/home/agent/.ssh/id_rsa',
      timestamp: '2026-01-01T00:00:02Z',
    }),
    nativeLine({
      event_type: 'network_connect',
      dst_ip: '10.0.0.5',
      dst_port: 443,
      timestamp: '2026-01-01T00:00:03Z',
    }),
  ];
  const answer = await ingest(url, lines.join('\n'), 'native');
  assert.equal(answer.body['accepted'], 3, JSON.stringify(answer.body));
}
