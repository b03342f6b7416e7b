/**
 * The catalog in each provider's tool-definition format (`provd ai tools --provider P`), so an
 * agent framework can hand the nine tools to a model and route its calls to `provd ai call`:
 *
 * - `anthropic`: the Messages API `tools` array, `{name, description, input_schema}`;
 * - `openai`: the Chat Completions `tools` array, `{type: "function", function: {name,
 *   description, parameters}}` (not `strict`: strict mode wants every field required);
 * - `mcp`: the `tools` of an MCP tools/list result, as `provd ai mcp` lists them.
 */
import type { JsonObject } from '../shared/schema/json-object.js';
import type { AiTool } from './ai-tool.js';
import { catalog } from './catalog.js';
import { mcpTool } from './mcp-tools.js';
import type { Provider } from './providers.js';

export { providers, type Provider } from './providers.js';

const formats: Readonly<Record<Provider, (tool: AiTool) => JsonObject>> = {
  anthropic: (tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
  openai: (tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }),
  mcp: (tool) => mcpTool(tool),
};

/** The nine tools in `provider`'s format, in catalog order. */
export function providerTools(provider: Provider): JsonObject[] {
  return catalog.map(formats[provider]);
}
