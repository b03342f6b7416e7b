/**
 * The rows file of one normalize task, gathered event by event and written in one go, with the
 * events' content hashes: by the native addon (native/hash/rows.cc), from the events' canonical
 * contents and a few typed columns, or without it row by row in JavaScript (encodeEventRow). The
 * two write the same bytes (test/ingest/slice-rows.test.ts); the native writer spares the slice
 * ~2.5 µs an event of string building, joining and encoding.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { sha256Lines, writeRowsNative, type RowColumns } from '../provenance/batch-hash.js';
import type { Correlation } from '../telemetry/binding-index.js';
import { sourceCode, typeCode } from '../telemetry/codes.js';
import { correlationFields, encodeEventRow, rowFlags } from '../telemetry/event-row.js';
import type { ParsedEvent } from '../telemetry/event.js';
import { attrsInContent } from '../telemetry/event-hash.js';
import { eventBytes, isRisky } from '../telemetry/window-facts.js';

/** One event as a row takes it. */
export interface SliceEvent {
  event: ParsedEvent;
  /** Its canonical content (event-hash.ts: canonicalContent). */
  content: string;
  match: Correlation | undefined;
  judged: boolean;
  /** Store a pid no column holds, so the commit fails (fault injection for tests). */
  unstorablePid: boolean;
}

export class SliceRows {
  private readonly contents: string[];
  private readonly rows: SliceEvent[] = [];
  private readonly columns: RowColumns;
  private readonly correlationIndex = new Map<Correlation | undefined, number>();

  constructor(count: number) {
    this.contents = new Array<string>(count + 1);
    this.contents[count] = ''; // the last content's newline
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
   * events' content hashes, 32 bytes each in order: natively when the addon is built.
   */
  write(file: string): Buffer {
    return writeRowsNative === null ? this.writeInJs(file) : this.writeNatively(file);
  }

  /** write() by the addon (call only when writeRowsNative is not null). */
  writeNatively(file: string): Buffer {
    return writeRowsNative!(file, this.joinedContents(), this.columns);
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
          attrsInContent(row.content),
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

  /** The contents, each with its newline: canonical JSON escapes every control character, so none holds one. */
  private joinedContents(): Buffer {
    return Buffer.from(this.contents.join('\n'));
  }
}
