/** A tool that POSTs a JSON body: the gate, and the two context writes. */
import type { EndpointContract } from '../shared/http/endpoint.js';
import type { JsonObject } from '../shared/schema/json-object.js';
import type { SchemaContract } from '../shared/schema/schema-contract.js';
import type { AiTool, ToolKind, ToolName } from './ai-tool.js';
import { inputSchemaOf, outputSchemaOf } from './tool-schemas.js';

/** What a body tool's file states; the rest comes from the endpoint of the same operation. */
export interface BodyToolSpec<T> {
  name: ToolName;
  title: string;
  description: string;
  kind: Exclude<ToolKind, 'read'>;
  /** The POST endpoint it calls, as its `*.contract.ts` states it. */
  endpoint: EndpointContract;
  /** The endpoint's own body contract: the tool validates exactly what the route does. */
  body: SchemaContract<T>;
  /** Descriptions of the fields the tool overrides, replacing the endpoint's. */
  notes?: Readonly<Record<string, string>>;
  /** The body actually sent: where a write tool forces its trust boundary, whatever the input says. */
  force?: (input: T) => JsonObject;
}

/** Builds a tool that POSTs its checked (and, for writes, forced) input to the endpoint. */
export function bodyTool<T>(spec: BodyToolSpec<T>): AiTool {
  const { endpoint } = spec;
  if (endpoint.method !== 'POST')
    throw new Error(`failed to build tool ${spec.name}: ${endpoint.operationId} is not a POST endpoint`);
  const force = spec.force ?? ((input: T) => input as JsonObject);
  const contract = spec.body.withSubject(`${spec.name} input`);
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    kind: spec.kind,
    inputSchema: inputSchemaOf(contract, spec.notes),
    outputSchema: outputSchemaOf(endpoint),
    prepare(input) {
      const checked = contract.checkExact(input);
      if (!checked.ok) return checked;
      return { ok: true, value: { method: 'POST', path: endpoint.path, body: force(checked.value) } };
    },
  };
}
