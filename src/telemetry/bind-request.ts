/**
 * The body of POST /v1/telemetry/bind as one TS type: typia makes it the OpenAPI `BindRequest`
 * schema and the structural check of parseBindRequest (binding.ts), which adds what a schema
 * cannot state.
 */
import typia, { type IJsonSchemaCollection } from 'typia';
import { SchemaContract } from '../shared/schema/schema-contract.js';
import type { CleanText, DateTimeText, Identifier, IntegerIn } from '../shared/schema/wire-types.js';
import type { BindingConfidence, BindingSource, Pid } from './binding.js';

/**
 * A ToolCallScope to bind to system-side identities: at least one of process_id, container_id,
 * cgroup_id, pid, root_pid; ended_at not before started_at. null means absent.
 */
export interface BindRequest {
  run_id: Identifier;
  tool_call_id: Identifier;
  session_id?: Identifier | null;
  /** Compared with an event's process identity: Tetragon exec_id, else the decimal tgid (or pid). */
  process_id?: Identifier | null;
  container_id?: Identifier | null;
  /**
   * A cgroup v2 id (an integer below 2^53, or its decimal string) or a cgroup path; paths
   * (kubepods.slice/.../cri-containerd-<64 hex>.scope) outgrow ids, and PATH_MAX bounds them.
   */
  cgroup_id?: CleanText<1, 4096> | IntegerIn<0, 9007199254740991> | null;
  pid?: Pid | null;
  root_pid?: Pid | null;
  started_at?: DateTimeText | null;
  /** Inclusive; a whole-second time covers its whole second. */
  ended_at?: DateTimeText | null;
  /** Who asserts the binding; control_plane when absent. */
  binding_source?: BindingSource | null;
  /** Default by source: ai_asserted 0.5, k8s_cgroup 0.8, otherwise 1.0. */
  confidence?: BindingConfidence | null;
}

/** The fields that tie a binding to system-side identities; a binding needs at least one. */
export const systemKeys = ['process_id', 'container_id', 'cgroup_id', 'pid', 'root_pid'] as const;

/**
 * BindRequest's schema for the OpenAPI document, plus the one check of parseBindRequest beyond its
 * type that a schema can state, from the same list of keys: at least one system-side key, and not
 * null. typia has no tag for it.
 */
export function bindRequestType(): IJsonSchemaCollection<'3.1'> {
  const collection = typia.json.schemas<[BindRequest], '3.1'>();
  const schemas = collection.components.schemas!;
  schemas['BindRequest'] = {
    ...schemas['BindRequest'],
    anyOf: systemKeys.map((key) => ({ required: [key], properties: { [key]: { not: { type: 'null' } } } })),
  } as unknown as (typeof schemas)[string];
  return collection;
}

/** BindRequest's schema and validator: unknown fields are refused (createValidateEquals). */
export const bindRequest = new SchemaContract<BindRequest>(
  typia.json.schema<BindRequest, '3.1'>(),
  typia.createValidateEquals<BindRequest>(),
  'bind body',
);
