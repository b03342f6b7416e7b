/**
 * Bindings reach every thread that correlates through one BroadcastChannel. The store actor is the
 * only writer: it persists a binding, then announces it. A thread that starts late asks for a
 * snapshot; the store answers with every binding. Adding is idempotent, so repeats are harmless.
 */
import type { Binding } from './binding.js';
import { BindingIndex } from './binding-index.js';

export const bindingChannelName = 'provd.bindings';

/** What travels on the channel. */
export type BindingMessage =
  { type: 'binding'; binding: Binding } | { type: 'snapshot'; bindings: Binding[] } | { type: 'sync' };

/** A BindingIndex that ignores bindings it already holds, so announcements and snapshots can overlap. */
export class BindingReplica {
  readonly index = new BindingIndex();
  private readonly known = new Set<string>();

  /** Number of distinct bindings held; the store compares it with its own to spot a lagging replica. */
  get version(): number {
    return this.known.size;
  }

  add(binding: Binding): void {
    if (this.known.has(binding.binding_id)) return;
    this.known.add(binding.binding_id);
    this.index.add(binding);
  }

  apply(message: BindingMessage): void {
    if (message.type === 'binding') this.add(message.binding);
    else if (message.type === 'snapshot') for (const binding of message.bindings) this.add(binding);
  }
}

let workerReplica: BindingReplica | undefined;

/** This worker thread's replica, subscribed on first use (it asks the store for a snapshot then). */
export function workerBindingReplica(): BindingReplica {
  if (workerReplica !== undefined) return workerReplica;
  const replica = new BindingReplica();
  const channel = new BroadcastChannel(bindingChannelName);
  channel.onmessage = (event) => replica.apply((event as MessageEvent).data as BindingMessage);
  channel.postMessage({ type: 'sync' } satisfies BindingMessage);
  // the channel must not keep an idle worker alive on its own
  (channel as unknown as { unref(): void }).unref();
  workerReplica = replica;
  return replica;
}
