/**
 * Bindings for the normalize workers, as an append-only log in a SharedArrayBuffer. The main
 * thread appends each binding once the store has persisted it (and before the bind is answered);
 * each task reads what is new before it correlates. No message is involved: measured, an idle
 * piscina worker did not process BroadcastChannel messages until a task woke it, and then only
 * after the task had run, so broadcast replicas lagged by whole batches.
 *
 * Layout: Int32 header [entries, bytes used], then entries of [u32 length][JSON bytes].
 */
import type { Binding } from './binding.js';
import { bindingFromJson, bindingToJson } from './binding-json.js';

const headerBytes = 8;
/** 64 MiB of address space; the OS backs only the pages written (some 200,000 bindings). */
export const defaultBindingLogBytes = 64 * 1024 * 1024;

/** One log, shared by the main thread (the one writer) and every worker (readers). */
export class BindingLog {
  private readonly header: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readOffset = headerBytes;
  private readCount = 0;
  private readonly listeners: ((binding: Binding) => void)[] = [];

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(defaultBindingLogBytes)) {
    this.header = new Int32Array(buffer, 0, 2);
    this.bytes = new Uint8Array(buffer);
    this.view = new DataView(buffer);
  }

  /** Entries written so far. */
  get size(): number {
    return Atomics.load(this.header, 0);
  }

  /** Appends a binding (main thread only); false when the log is full. */
  append(binding: Binding): boolean {
    const encoded = new TextEncoder().encode(bindingToJson(binding));
    const offset = headerBytes + Atomics.load(this.header, 1);
    if (offset + 4 + encoded.length > this.bytes.length) return false;
    this.view.setUint32(offset, encoded.length);
    this.bytes.set(encoded, offset + 4);
    Atomics.store(this.header, 1, offset + 4 + encoded.length - headerBytes);
    // the count is published last: a reader that sees it also sees the bytes
    Atomics.add(this.header, 0, 1);
    for (const listener of this.listeners) listener(binding);
    return true;
  }

  /** Calls `listener` with each binding appended from now on (main thread: the sensor's capture filter). */
  onAppend(listener: (binding: Binding) => void): void {
    this.listeners.push(listener);
  }

  /** Every binding appended so far, without moving this reader's position. */
  readAll(add: (binding: Binding) => void): void {
    new BindingLog(this.buffer).readNew(add);
  }

  /** Calls `add` for every entry this reader has not seen yet (worker side). */
  readNew(add: (binding: Binding) => void): void {
    const available = Atomics.load(this.header, 0);
    const decoder = new TextDecoder();
    while (this.readCount < available) {
      const length = this.view.getUint32(this.readOffset);
      const text = decoder.decode(this.bytes.slice(this.readOffset + 4, this.readOffset + 4 + length));
      this.readOffset += 4 + length;
      this.readCount++;
      add(bindingFromJson(text));
    }
  }
}
