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
  private readonly known = new Map<string, Binding>();
  private markSynced: () => void = () => undefined;
  /** Settles when the first snapshot has been applied. */
  readonly synced = new Promise<void>((resolve) => (this.markSynced = resolve));

  /** Number of distinct bindings held; the store compares it with its own to spot a lagging replica. */
  get version(): number {
    return this.known.size;
  }

  add(binding: Binding): void {
    if (this.known.has(binding.binding_id)) return;
    this.known.set(binding.binding_id, binding);
    this.index.add(binding);
  }

  /** Every binding held, in arrival order. */
  list(): Binding[] {
    return [...this.known.values()];
  }

  apply(message: BindingMessage): void {
    if (message.type === 'binding') this.add(message.binding);
    if (message.type !== 'snapshot') return;
    for (const binding of message.bindings) this.add(binding);
    this.markSynced();
  }
}

let workerReplica: BindingReplica | undefined;

/**
 * This worker thread's replica, subscribed on first use: it asks the store for a snapshot then,
 * and `synced` settles when it has one. A channel does not keep messages for late subscribers.
 */
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
