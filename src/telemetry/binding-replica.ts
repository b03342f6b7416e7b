/**
 * A copy of the bindings with its own index, as each correlating thread holds one (the store
 * actor, and every normalize worker, fed from the BindingLog). Adding is idempotent, and
 * `version` counts distinct bindings, so the store can tell a lagging replica by its version.
 */
import type { Binding } from './binding.js';
import { BindingIndex } from './binding-index.js';

/** A BindingIndex that ignores bindings it already holds. */
export class BindingReplica {
  readonly index = new BindingIndex();
  private readonly known = new Map<string, Binding>();

  /** Number of distinct bindings held. */
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
}
