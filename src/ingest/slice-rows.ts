/**
 * The rows file of one normalize task, gathered event by event and written in one go, with the
 * events' content hashes: by the native addon (native/hash/rows.cc), from the events' canonical
 * contents and a few typed columns, or without it row by row in JavaScript (encodeEventRow). The
 * two write the same bytes (test/ingest/slice-rows.test.ts); the native writer spares the slice
 * ~2.5 µs an event of string building, joining and encoding.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { nativeContents, sha256Lines, writeRowsNative, type RowColumns } from '../provenance/batch-hash.js';
import type { Correlation } from '../telemetry/binding-index.js';
import { sourceCode, typeCode } from '../model/codes.js';
import { correlationFields, encodeEventRow, rowFlags } from '../telemetry/event-row.js';
import { eventTypes, type ParsedEvent } from '../model/event.js';
import { attrsInContent, canonicalContent } from '../telemetry/event-hash.js';
import { eventBytes, isRisky } from '../telemetry/window-facts.js';

/** One event as a row takes it. */
export interface SliceEvent {
  event: ParsedEvent;
  /**
   * Its canonical content (event-hash.ts: canonicalContent), or null to have the addon build it
   * from the event's native-format line (`line`), when the addon is loaded (nativeContents).
   */
  content: string | null;
  /** The 1-based line of the slice the event was parsed from, when `content` is null; else 0. */
  line: number;
  match: Correlation | undefined;
  judged: boolean;
  /** Store a pid no column holds, so the commit fails (fault injection for tests). */
  unstorablePid: boolean;
}

export class SliceRows {
  private readonly contents: (string | null)[];
  private readonly rows: SliceEvent[] = [];
  private readonly columns: RowColumns;
  private readonly correlationIndex = new Map<Correlation | undefined, number>();
  /** Per event, its line when the addon builds its content (SliceEvent.line), else 0. */
  private readonly lines: Uint32Array;
  /** Per event, the code + 1 of attrs.observed_type (classification changed its type), else 0. */
  private readonly observed: Uint8Array;
  private linesToBuild = 0;
  /** After a write, the UTF-16 length of each natively built content's attrs. */
  private builtAttrsLength: Uint32Array | undefined;

  constructor(count: number) {
    this.contents = new Array<string | null>(count + 1);
    this.contents[count] = ''; // the last content's newline
    this.lines = new Uint32Array(count);
    this.observed = new Uint8Array(count);
    this.columns = {
      type: new Uint8Array(count),
      source: new Uint8Array(count),
      timeNs: new BigInt64Array(count),
      flags: new Uint8Array(count),
      bytes: new Float64Array(count),
      correlation: new Uint32Array(count),
      correlations: [],
    };
  }

  /** Adds event `i` (in order, from 0). */
  add(i: number, row: SliceEvent): void {
    const { event } = row;
    const columns = this.columns;
    this.contents[i] = row.content;
    this.rows.push(row);
    if (row.content === null) {
      this.lines[i] = row.line;
      this.linesToBuild++;
      const observed = event.attrs.observed_type;
      if (observed !== undefined) this.observed[i] = typeCode(observed as ParsedEvent['type']) + 1;
    }
    columns.type[i] = typeCode(event.type);
    columns.source[i] = sourceCode(event.source);
    columns.timeNs[i] = event.timeNs;
    columns.flags[i] =
      (isRisky(event.type, event.attrs) ? rowFlags.risky : 0) |
      (row.judged ? rowFlags.judged : 0) |
      (row.unstorablePid ? rowFlags.unstorablePid : 0);
    columns.bytes[i] = eventBytes(event.attrs);
    let correlation = this.correlationIndex.get(row.match);
    if (correlation === undefined) {
      correlation = columns.correlations.length;
      columns.correlations.push(correlationFields(row.match));
      this.correlationIndex.set(row.match, correlation);
    }
    columns.correlation[i] = correlation;
  }

  /**
   * Writes the rows file at `file` (mode 0600; removed again if writing fails) and returns the
   * events' content hashes, 32 bytes each in order: natively when the addon is built. `slice` holds
   * the lines of events added without a content, as parsed from a slice's first line (a leading
   * BOM skipped).
   */
  write(file: string, slice?: Uint8Array): Buffer {
    return writeRowsNative === null ? this.writeInJs(file) : this.writeNatively(file, slice);
  }

  /** write() by the addon (call only when writeRowsNative is not null). */
  writeNatively(file: string, slice?: Uint8Array): Buffer {
    const contents =
      this.linesToBuild > 0 && slice !== undefined ? this.builtContents(slice) : this.joinedContents();
    return writeRowsNative!(file, contents, this.columns);
  }

  /** write() in JavaScript, row by row. */
  writeInJs(file: string): Buffer {
    const digests = sha256Lines(this.joinedContents());
    const hex = digests.toString('hex');
    const text = this.rows
      .map((row, i) => {
        const pid = row.unstorablePid ? -1 : row.event.pid;
        return encodeEventRow(
          i,
          row.event,
          attrsInContent(this.contents[i]!),
          hex.slice(i * 64, i * 64 + 64),
          row.judged,
          row.match,
          pid,
        );
      })
      .join('');
    try {
      writeFileSync(file, text, { mode: 0o600 });
    } catch (error) {
      rmSync(file, { force: true });
      throw error;
    }
    return digests;
  }

  /** The UTF-16 length of event i's attrs JSON, once the rows are written. */
  attrsLength(i: number): number {
    if (this.lines[i] !== 0 && this.builtAttrsLength !== undefined) return this.builtAttrsLength[i]!;
    return attrsInContent(this.contentOf(i)).length;
  }

  /**
   * Every content built by the addon from its line; those it could not write exactly (refused) are
   * written here and the call repeated once, with them among the fallback contents.
   */
  private builtContents(slice: Uint8Array): Buffer {
    const build = (): ReturnType<NonNullable<typeof nativeContents>> => {
      const fallback: string[] = [];
      for (let i = 0; i < this.lines.length; i++) if (this.lines[i] === 0) fallback.push(this.contents[i]!);
      const joined = fallback.length === 0 ? '' : fallback.join('\n') + '\n';
      return nativeContents!(
        slice,
        this.lines,
        this.columns.type,
        this.observed,
        eventTypes,
        Buffer.from(joined),
        true,
      );
    };
    let built = build();
    if (built.contents === null) {
      for (const i of built.refused) {
        this.contents[i] = canonicalContent(this.rows[i]!.event);
        this.lines[i] = 0;
      }
      built = build();
    }
    if (built.contents === null)
      throw new Error('failed to build contents: the addon refused fallback contents');
    this.builtAttrsLength = built.attrsLength;
    return built.contents;
  }

  /** Event i's content, written in JavaScript if it was left to the addon. */
  private contentOf(i: number): string {
    return (this.contents[i] ??= canonicalContent(this.rows[i]!.event));
  }

  /** The contents, each with its newline: canonical JSON escapes every control character, so none holds one. */
  private joinedContents(): Buffer {
    for (let i = 0; i < this.rows.length; i++) this.contentOf(i);
    return Buffer.from(this.contents.join('\n'));
  }
}
