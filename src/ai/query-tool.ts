/** A read tool: a GET endpoint of the daemon, its input the endpoint's query parameters as JSON. */
import type { EndpointContract } from '../shared/http/endpoint.js';
import type { ParamContract } from '../shared/http/param-contract.js';
import type { AiTool, ToolName } from './ai-tool.js';
import { inputSchemaOf, outputSchemaOf } from './tool-schemas.js';

/** What a read tool's file states; the rest comes from the endpoint of the same operation. */
export interface QueryToolSpec<T extends object> {
  name: ToolName;
  title: string;
  description: string;
  /** The GET endpoint it calls, as its `*.contract.ts` states it. */
  endpoint: EndpointContract;
  /** The route's own parameter contract: the tool validates exactly what the route does. */
  query: ParamContract<T>;
}

/** Builds a read tool. A null field counts as absent, as an absent query parameter. */
export function queryTool<T extends object>(spec: QueryToolSpec<T>): AiTool {
  const { endpoint } = spec;
  if (endpoint.method !== 'GET')
    throw new Error(`failed to build tool ${spec.name}: ${endpoint.operationId} is not a GET endpoint`);
  const contract = spec.query.asObject(`${spec.name} input`);
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    kind: 'read',
    inputSchema: inputSchemaOf(contract),
    outputSchema: outputSchemaOf(endpoint),
    prepare(input) {
      const checked = contract.checkExact(withoutNulls(input));
      if (!checked.ok) return checked;
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(checked.value)) {
        if (value !== undefined) query.set(name, String(value));
      }
      return { ok: true, value: { method: 'GET', path: `${endpoint.path}?${query.toString()}` } };
    },
  };
}

/** An object without its null fields; anything else as it is (the contract refuses it). */
function withoutNulls(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null));
}
