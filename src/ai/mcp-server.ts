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
import * as z from 'zod/v4';
import { provdVersion } from '../shared/package-root.js';
import { webViewPath } from '../views/web/web-pages.js';
import type { AiTool } from './ai-tool.js';
import { catalog, toolNames } from './catalog.js';
import { webViewLink } from './web-view-link.js';
import { callToolResult, mcpTools } from './mcp-tools.js';
import type { ToolDispatcher } from './tool-dispatcher.js';

const instructions =
  'provd records what AI agents did on this Linux host, with evidence. Start with get_signals or ' +
  'get_timeline for a run, drill in with list_risks, list_events and explain, and check integrity ' +
  'with verify_run. Ask evaluate_action before a risky action. bind_scope and record_tool_call ' +
  'store only your own asserted context: they can never produce kernel_correlated evidence.';

/**
 * tools/call with any params. The SDK's Server checks a tools/call itself and answers bad params
 * with JSON-RPC -32602, as the spec says; the schema a handler is registered with is checked first,
 * and its failure would be answered -32603 (internal error) instead.
 */
const looseToolsCall = CallToolRequestSchema.extend({ params: z.unknown() });

/** What differs between the MCP servers: the daemon's own at /mcp and `provd ai mcp`. */
export interface McpServerOptions {
  /** Lists and serves only the reads and the gate (`--mcp-read-only`): no context writes. */
  readOnly?: boolean;
  /** Lists and serves only these of them (a client's own choice: `/mcp?tools=...`). */
  only?: ReadonlySet<string>;
  /** The web view's address (`http://HOST:PORT/ui`): answers about a run link its page. */
  webView?: string;
}

/** An MCP server whose tools are the catalog (less the writes when read-only), each call run by `dispatcher`. */
export function createMcpServer(dispatcher: ToolDispatcher, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'provd', title: 'provd', version: provdVersion },
    { capabilities: { tools: { listChanged: false } }, instructions },
  );
  const tools = servedTools(options);
  const listed = mcpTools(tools);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(looseToolsCall, async (request) => {
    const { params } = CallToolRequestSchema.parse(request); // the Server checked it: see looseToolsCall
    // a hidden write is as unknown as a misspelt name: a read-only server never names it
    const tool = tools.find(({ name }) => name === params.name);
    if (tool === undefined)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(params.name.slice(0, 64))}; the tools are ${tools.map(({ name }) => name).join(', ')}`,
      );
    const outcome = await dispatcher.call(tool, params.arguments);
    const link =
      options.webView === undefined ? undefined : webViewLink(options.webView, params.arguments, outcome);
    return callToolResult(outcome, link);
  });
  return server;
}

/** The tools a server with `options` lists and serves, in catalog order. */
export function servedTools({ readOnly, only }: McpServerOptions): readonly AiTool[] {
  return catalog.filter(
    ({ kind, name }) => !(readOnly === true && kind === 'write') && (only?.has(name) ?? true),
  );
}

/**
 * Serves MCP on `stdin`/`stdout` until the client closes stdin; resolves then. Diagnostics (a
 * protocol error, the start line) go to `stderr`.
 */
export async function serveMcpStdio(
  dispatcher: ToolDispatcher,
  io: { stdin: Readable; stdout: Writable; stderr: Writable; daemonUrl: string },
): Promise<void> {
  // answers link the run's page at the daemon the calls go to, as `provd ui` prints it
  const server = createMcpServer(dispatcher, { webView: `${io.daemonUrl}${webViewPath}` });
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
