/**
 * One operation of the HTTP interface, declared once, in its route file: what the router serves
 * and what the OpenAPI document says both come from this declaration, so they cannot disagree.
 * daemon/endpoints.ts only lists the declarations.
 */
import type { IJsonSchemaCollection } from 'typia';
import type { RequestParam } from './param-contract.js';
import type { RouteHandler } from './route.js';

/** Error answers an operation gives beyond those every operation of its shape gives. */
export type ExtraErrorStatus = '404' | '409' | '422' | '429';

/**
 * One operation: its method and path, its words for the document, its parameter and body
 * contracts, and how its handler is built from the daemon's parts it names in `Deps`. Code that
 * only reads the facts takes `Endpoint<never>`, which every endpoint is.
 */
export interface Endpoint<Deps = unknown> {
  method: 'GET' | 'POST';
  path: string;
  operationId: string;
  summary: string;
  /** What the operation's description says before the auth note, when the summary is not enough. */
  description?: string;
  /** The 200 body's `schema_version` is `provenance.<schema>/v1`. */
  schema: string;
  /**
   * The 200 body's TS type, as typia states it where the route is declared:
   * `() => typia.json.schemas<[Answer], '3.1'>()` (several when it answers one of several bodies).
   * The OpenAPI document and the AI tools' output schemas are built from these.
   */
  answerType?: () => IJsonSchemaCollection<'3.1'>;
  /** No token needed even when bearer auth is on (the health endpoints). */
  public?: boolean;
  query?: readonly RequestParam[];
  /** The request headers its route reads (the server passes only these on). */
  headers?: readonly RequestParam[];
  /** Media type of the request body, for write endpoints. */
  body?: 'application/json' | 'application/x-ndjson';
  /** The JSON request body's TS type, likewise; without it, the body is documented as an object. */
  bodyType?: () => IJsonSchemaCollection<'3.1'>;
  /** Answers beyond the shape's own: 404 for an id named outside `run`, 409, 422, 429. */
  errors?: readonly ExtraErrorStatus[];
  /** Which 409 it answers: a tool call the run holds (the default), or a run that exists. */
  conflict?: 'ToolCallExists' | 'RunExists';
  /**
   * What a request from a process a binding covers may do here (its connection marked by the
   * kernel: src/daemon/watched-callers.ts). Absent: a GET is answered, anything else is refused.
   * `open`: answered (the operation stores nothing). A function of the JSON body: answered when it
   * returns null (the body is what an AI tool sends, labelled `ai_asserted`), else refused saying why.
   */
  watched?: 'open' | ((body: Record<string, unknown>) => string | null);
  /** Builds the handler once, from the parts of the daemon it needs. */
  handler: (deps: Deps) => RouteHandler;
}

/**
 * What a caller of an operation needs of it: where it is and what it answers, without its handler.
 * An endpoint an AI tool calls declares these in its `*.contract.ts`, which its route spreads, so
 * the tool reads them from a module with no route or store code.
 */
export type EndpointContract = Pick<
  Endpoint<never>,
  'method' | 'path' | 'operationId' | 'schema' | 'answerType'
>;
