/**
 * Objects of the provenance graph: `{kind, run_id, parents, payload}` as canonical JSON (RFC 8785),
 * addressed by `sha256:<hex>` of exactly those bytes. An object names its parents by hash, so
 * changing any stored byte of an object or of anything it descends from changes a hash verify checks.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../model/canonical-json.js';

/** The kinds of object the graph holds. */
export const objectKinds = [
  'run',
  'tool_call',
  'binding',
  'artifact',
  'file_effect',
  'event_batch',
  'checkpoint',
  /** An agent's hook event that is not a tool call's (session start, prompt, stop, session end). */
  'hook_event',
  /** Bytes a hook carried (a tool's input or result, a prompt's text when kept), named by content_hash. */
  'hook_content',
  /** An agent started by `provd watch` in a cgroup bound to the run, or its end (src/agents/watch/). */
  'agent_watch',
] as const;
export type ObjectKind = (typeof objectKinds)[number];

/** An object before it is addressed. */
export interface GraphObject {
  kind: ObjectKind;
  run_id: string;
  /** Hashes of the objects this one derives from, in a kind-specific order. */
  parents: string[];
  payload: Record<string, unknown>;
}

/** An addressed object: its hash and the canonical bytes it is the hash of. */
export interface SealedObject {
  hash: string;
  kind: ObjectKind;
  runId: string;
  /** Position in the run's chain (event_batch, checkpoint), else null. */
  chainIndex: number | null;
  body: string;
}

/** `sha256:<hex>` of a string's UTF-8 bytes. */
export function sha256(text: string | Uint8Array): string {
  return 'sha256:' + hash('sha256', text, 'hex');
}

/** Addresses an object: its canonical JSON and that JSON's hash. */
export function sealObject(object: GraphObject, chainIndex: number | null = null): SealedObject {
  const body = canonicalJson(object);
  return { hash: sha256(body), kind: object.kind, runId: object.run_id, chainIndex, body };
}

/** Parses a stored body back; throws on bytes that are not a graph object. */
export function parseObject(body: string): GraphObject {
  const value = JSON.parse(body) as Partial<GraphObject>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.run_id !== 'string' ||
    !objectKinds.includes(value.kind as ObjectKind) ||
    !Array.isArray(value.parents) ||
    typeof value.payload !== 'object'
  )
    throw new TypeError('not a provenance object');
  return value as GraphObject;
}
