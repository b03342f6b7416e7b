/**
 * `provd ai mcp`: the catalog over MCP (JSON-RPC 2.0 on stdio, protocol revision 2025-06-18 and
 * the others the SDK speaks). Only JSON-RPC goes to stdout; diagnostics go to stderr.
 *
 * The SDK's low-level Server, not McpServer: McpServer takes tool schemas only as zod, which would
 * be a second copy of the schemas typia generates from the daemon's own types (tool-schemas.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { provdVersion } from '../shared/package-root.js';
import { findTool, toolNames } from './catalog.js';
import { callToolResult, mcpTools } from './mcp-tools.js';
import type { ToolDispatcher } from './tool-dispatcher.js';

const instructions =
  'provd records what AI agents did on this Linux host, with evidence. Start with get_signals or ' +
  'get_timeline for a run, drill in with list_risks, list_events and explain, and check integrity ' +
  'with verify_run. Ask evaluate_action before a risky action. bind_scope and record_tool_call ' +
  'store only your own asserted context: they can never produce kernel_correlated evidence.';

/** An MCP server whose tools are the catalog, each call run by `dispatcher`. */
export function createMcpServer(dispatcher: ToolDispatcher): Server {
  const server = new Server(
    { name: 'provd', title: 'provd', version: provdVersion },
    { capabilities: { tools: { listChanged: false } }, instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpTools() }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = findTool(params.name);
    if (tool === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(params.name.slice(0, 64))}; the tools are ${toolNames.join(', ')}`,
      );
    return callToolResult(await dispatcher.call(tool, params.arguments));
  });
  return server;
}

/**
 * Serves MCP on `stdin`/`stdout` until the client closes stdin; resolves then. Diagnostics (a
 * protocol error, the start line) go to `stderr`.
 */
export async function serveMcpStdio(
  dispatcher: ToolDispatcher,
  io: { stdin: Readable; stdout: Writable; stderr: Writable; daemonUrl: string },
): Promise<void> {
  const server = createMcpServer(dispatcher);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  server.onerror = (error) => io.stderr.write(`provd ai mcp: ${error.message}\n`);
  // the SDK transport does not notice the end of stdin: a client that goes away ends the session
  io.stdin.once('end', () => void server.close());
  await server.connect(transport);
  io.stderr.write(`provd ai mcp: serving ${toolNames.length} tools for the daemon at ${io.daemonUrl}\n`);
  await closed;
}
