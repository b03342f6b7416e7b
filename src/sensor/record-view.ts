/** One raw record in a batch, read by field offset (records.ts); reads never go past the record. */
import { isUtf8 } from 'node:buffer';

const utf8 = new TextDecoder('utf-8'); // not fatal: a path's or comm's bytes are not always UTF-8

export class RecordView {
  /**
   * Text fields whose bytes are not UTF-8, by name, as hex: their text has U+FFFD where the bytes
   * could not be read, so the bytes themselves are kept beside it.
   */
  readonly notUtf8: Record<string, string> = {};

  constructor(
    /** A view of the whole batch, shared by its records. */
    private readonly view: DataView,
    private readonly bytes: Uint8Array,
    /** Where the record starts in `bytes`. */
    readonly at: number,
    /** Bytes of the record that hold data (header.size). */
    readonly size: number,
  ) {}

  /** Whether the record holds `bytes` bytes from `offset`. */
  holds(offset: number, bytes: number): boolean {
    return offset + bytes <= this.size;
  }

  u16(offset: number): number {
    return this.view.getUint16(this.at + offset, true);
  }

  u32(offset: number): number {
    return this.view.getUint32(this.at + offset, true);
  }

  i32(offset: number): number {
    return this.view.getInt32(this.at + offset, true);
  }

  u64(offset: number): bigint {
    return this.view.getBigUint64(this.at + offset, true);
  }

  i64(offset: number): bigint {
    return this.view.getBigInt64(this.at + offset, true);
  }

  /** `length` raw bytes from `offset`, at most to the record's end. */
  raw(offset: number, length: number): Uint8Array {
    const start = this.at + offset;
    return this.bytes.subarray(start, Math.min(start + length, this.at + this.size));
  }

  /** Text field `name`: `length` bytes from `offset`, at most to the record's end. */
  text(offset: number, length: number, name: string): string {
    return this.decode(this.raw(offset, length), name);
  }

  /** Text field `name`, NUL-terminated in a fixed field of `length` bytes; null when empty. */
  cString(offset: number, length: number, name: string): string | null {
    const field = this.raw(offset, length);
    const end = field.indexOf(0);
    const text = field.subarray(0, end === -1 ? field.length : end);
    return text.length === 0 ? null : this.decode(text, name);
  }

  private decode(bytes: Uint8Array, name: string): string {
    if (!isUtf8(bytes)) this.notUtf8[name] = Buffer.from(bytes).toString('hex');
    return utf8.decode(bytes);
  }
}
