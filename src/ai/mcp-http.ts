/**
 * The daemon's MCP server at POST /mcp: the Streamable HTTP transport of MCP 2025-11-25, through
 * the SDK's web-standard transport (Request in, Response out), stateless and answering JSON. Each
 * POST gets a server and transport of its own, as the SDK's stateless examples do; its tools reach
 * the daemon's endpoints in-process, as the caller of /mcp (its token, its watched mark), so a tool
 * answers exactly what the endpoint would. The uWS server has already applied to it what it applies
 * to every path: the browser guard, the bearer token, the body limit and `application/json`.
 *
 * Stateless, the spec's choices are: GET (a server-initiated SSE stream) 405, as no message is ever
 * sent unasked; DELETE (ending a session) 405; a request naming an `Mcp-Session-Id` 404, as this
 * server issues none, so any id is one it does not know (a client then starts anew).
 */
import type { Endpoint } from '../shared/http/endpoint.js';
import type { RequestParam } from '../shared/http/param-contract.js';
import type * as McpHttpAnswer from './mcp-http-answer.js';

/** Where the daemon serves MCP. */
export const mcpPath = '/mcp';

/** The request headers the transport reads (the server passes on only those an endpoint names). */
export const transportHeaders = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'host'];

/** How the daemon's MCP endpoint serves: `--mcp-read-only` hides the two context writes. */
export interface McpHttpOptions {
  readOnly: boolean;
}

let answering: Promise<typeof McpHttpAnswer> | undefined;

/** POST /mcp, for the daemon's router (not in the OpenAPI document: MCP is its own protocol). */
export function mcpHttpEndpoint(options: McpHttpOptions): Endpoint {
  return {
    method: 'POST',
    path: mcpPath,
    operationId: 'mcp',
    summary: 'MCP server (Streamable HTTP, stateless): the AI tools of docs/ai-tools.md',
    schema: 'mcp', // answers are JSON-RPC, not provd bodies
    body: 'application/json',
    headers: transportHeaders.map(header),
    // each tool call is judged as the endpoint it reaches: a marked caller's write only as ai_asserted
    watched: 'open',
    // the MCP SDK and the tools' schemas load at the first call, not at every daemon's start (~0.25 s of CPU)
    handler: () => async (request) =>
      (await (answering ??= import('./mcp-http-answer.js'))).answerMcp(request, options),
  };
}

function header(name: string): RequestParam {
  return { name, in: 'header', required: false, schema: { type: 'string' } };
}
