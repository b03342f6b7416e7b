/**
 * A copy of the bindings with its own index, as each correlating thread holds one (the store
 * actor, and every normalize worker, fed from the BindingLog). Adding is idempotent, and
 * `version` counts distinct bindings, so the store can tell a lagging replica by its version.
 */
import type { Binding } from './binding.js';
import { BindingIndex } from './binding-index.js';

/** A BindingIndex that ignores bindings it already holds. */
export class BindingReplica {
  private current = new BindingIndex();
  private readonly known = new Map<string, Binding>();

  get index(): BindingIndex {
    return this.current;
  }

  /** Number of distinct bindings held. */
  get version(): number {
    return this.known.size;
  }

  add(binding: Binding): void {
    if (this.known.has(binding.binding_id)) return;
    this.known.set(binding.binding_id, binding);
    this.current.add(binding);
  }

  /**
   * Takes a binding back out (its transaction rolled back). The index only grows, so it is rebuilt
   * from the rest, in arrival order: a rare path, and it keeps every tie-break as it was.
   */
  remove(bindingId: string): void {
    if (!this.known.delete(bindingId)) return;
    this.current = new BindingIndex();
    for (const binding of this.known.values()) this.current.add(binding);
  }

  /** Every binding held, in arrival order. */
  list(): Binding[] {
    return [...this.known.values()];
  }
}
