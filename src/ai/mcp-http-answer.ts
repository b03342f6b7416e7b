/**
 * Answers one POST /mcp (mcp-http.ts declares the endpoint and loads this at its first call): a
 * server and a web-standard transport of its own per request, its tools served in-process.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { errorReply, type HttpReply } from '../shared/http/http-reply.js';
import type { RouteRequest } from '../shared/http/route.js';
import { webViewPath } from '../views/web/web-pages.js';
import { mcpPath, transportHeaders, type McpHttpOptions } from './mcp-http.js';
import { createMcpServer, servedTools } from './mcp-server.js';
import { ToolDispatcher } from './tool-dispatcher.js';

/** Response headers the uWS exchange writes itself. */
const ownHeaders = new Set(['content-length', 'connection', 'keep-alive', 'transfer-encoding']);

export async function answerMcp(request: RouteRequest, options: McpHttpOptions): Promise<HttpReply> {
  const { headers, local } = request;
  if (local === undefined) throw new Error('POST /mcp needs the server to serve its tools in-process');
  if (headers['mcp-session-id'] !== '')
    return jsonRpcError(
      404,
      -32001,
      'Session not found: this server is stateless and issues no Mcp-Session-Id',
    );
  const only = toolsAsked(request.query, options);
  if (typeof only === 'string') return errorReply('invalid_argument', only);
  const webView = webViewOf(headers['host'] ?? '');
  const server = createMcpServer(new ToolDispatcher(local), {
    readOnly: options.readOnly,
    ...(only !== undefined && { only }),
    ...(webView !== undefined && { webView }),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    const given = new Headers();
    for (const name of transportHeaders) if (headers[name]) given.set(name, headers[name]);
    const body = request.body ?? Buffer.alloc(0);
    const parsed = parsedJson(body);
    // JSON-RPC 2.0: an empty batch is an invalid request; the SDK would take it for notifications (202)
    if (Array.isArray(parsed) && parsed.length === 0)
      return jsonRpcError(400, -32600, 'Invalid Request: an empty batch');
    const response = await transport.handleRequest(
      new Request(`http://provd${mcpPath}`, { method: 'POST', headers: given, body }),
      // parsed once; what does not parse the SDK answers itself, after its header checks
      parsed === undefined ? undefined : { parsedBody: parsed },
    );
    const replyHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!ownHeaders.has(name)) replyHeaders[name] = value;
    });
    return {
      status: response.status,
      body: new Uint8Array(await response.arrayBuffer()),
      headers: replyHeaders,
    };
  } finally {
    await server.close();
  }
}

/**
 * The tools a client asked for with `?tools=a,b` (its own narrower list, as Grafana's and Datadog's
 * MCP servers take one), undefined when it named none, or why the list is refused: a name that is
 * no tool, or a write a read-only daemon does not serve.
 */
function toolsAsked(
  query: URLSearchParams,
  options: McpHttpOptions,
): ReadonlySet<string> | string | undefined {
  const given = query.getAll('tools');
  if (given.length === 0) return undefined;
  if (given.length > 1) return 'tools is given more than once; name the tools in one comma-separated list';
  const names = given[0]!.split(',');
  const served: readonly string[] = servedTools({ readOnly: options.readOnly }).map(({ name }) => name);
  const unknown = names.find((name) => !served.includes(name));
  if (unknown === undefined) return new Set(names);
  return `tools names ${JSON.stringify(unknown.slice(0, 64))}, which this daemon does not serve; it serves ${served.join(', ')}`;
}

/** A JSON-RPC error as the SDK's transport answers one (no id: it answers no one request). */
function jsonRpcError(status: number, code: number, message: string): HttpReply {
  return { status, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }) };
}

/** `http://HOST/ui` for the Host the client addressed, when it is a plain host[:port]; else undefined. */
function webViewOf(host: string): string | undefined {
  if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(host)) return undefined;
  return `http://${host}${webViewPath}`;
}

/** The body as JSON, or undefined when it does not parse. */
function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
