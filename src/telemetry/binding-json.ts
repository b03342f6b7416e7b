/** A Binding's stored form: JSON, with its bigint instants as decimal strings. */
import type { Binding } from './binding.js';

/** The JSON text of a binding. */
export function bindingToJson(binding: Binding): string {
  return JSON.stringify(binding, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

/** A binding back from its JSON text. */
export function bindingFromJson(text: string): Binding {
  const raw = JSON.parse(text) as Binding & {
    created_ns: string;
    startNs: string | null;
    endNs: string | null;
  };
  return {
    ...raw,
    created_ns: BigInt(raw.created_ns),
    startNs: raw.startNs === null ? null : BigInt(raw.startNs),
    endNs: raw.endNs === null ? null : BigInt(raw.endNs),
  };
}
