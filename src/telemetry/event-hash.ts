/**
 * The content hash of an event: sha256 over the canonical JSON (RFC 8785) of its system-side facts.
 * Correlation is left out on purpose, so re-attributing a spooled event never changes its hash.
 */
import { hash } from 'node:crypto';
import type { ParsedEvent } from './event.js';

/**
 * The canonical JSON of an event's facts, written directly in JCS key order (attrs, cgroup_id, comm,
 * container_id, pid, ppid, source, tgid, time, type, uid) to spare a sort per event on the hot path;
 * `attrsJson` must already be canonical. A test holds this equal to canonicalJson of the same object.
 */
export function canonicalEventContent(event: ParsedEvent, attrsJson: string): string {
  return (
    `{"attrs":${attrsJson},"cgroup_id":${JSON.stringify(event.cgroupId)},"comm":${JSON.stringify(event.comm)},` +
    `"container_id":${JSON.stringify(event.containerId)},"pid":${event.pid},"ppid":${event.ppid},` +
    `"source":${JSON.stringify(event.source)},"tgid":${event.tgid},"time":${JSON.stringify(event.time)},` +
    `"type":${JSON.stringify(event.type)},"uid":${event.uid}}`
  );
}

/** `sha256:<hex>` of the event's canonical content. */
export function hashEvent(event: ParsedEvent, attrsJson: string): string {
  // one-shot crypto.hash: a third of createHash's cost for inputs this small
  return 'sha256:' + hash('sha256', canonicalEventContent(event, attrsJson), 'hex');
}
