/** The catalog as MCP `Tool` definitions (tools/list) and a tool outcome as a CallToolResult. */
import type { CallToolResult, ResourceLink, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AiTool } from './ai-tool.js';
import { catalog } from './catalog.js';
import { failureBody, type ToolOutcome } from './tool-outcome.js';

/** One tool as tools/list lists it: reads and the gate are hinted read-only, the two writes not. */
export function mcpTool(tool: AiTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.kind !== 'write',
      // the writes only add asserted context: they never change or remove what is stored
      destructiveHint: false,
      idempotentHint: tool.kind !== 'write',
      // every tool talks to the local daemon only
      openWorldHint: false,
    },
  };
}

/** The tools as the MCP server lists them: the nine of the catalog, or those given. */
export function mcpTools(tools: readonly AiTool[] = catalog): Tool[] {
  return tools.map(mcpTool);
}

/**
 * A tool outcome as MCP returns it: the JSON in a text block, and the object again as
 * `structuredContent`, then the link to the web view's page of it when there is one; a failure is an
 * `isError` result whose text is the error body (code, message).
 */
export function callToolResult(outcome: ToolOutcome, link?: ResourceLink): CallToolResult {
  if (!outcome.ok)
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(failureBody(outcome.failure)) }] };
  const text = { type: 'text', text: JSON.stringify(outcome.body) } as const;
  return { content: link === undefined ? [text] : [text, link], structuredContent: outcome.body };
}
