/**
 * A plain text table (no colour, no cutting) for the commands that print one to any stream
 * (`runs`, `sensor status`, `ai tools`): the same columns as every other view (columns.ts).
 */
import { formatColumns } from './columns.js';
import type { Style } from './style.js';

// whole values and no escapes, whatever the stream
const plain: Style = { paint: (text) => text, width: undefined };

/** A header line, then one line a row, columns padded to line up. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  /** Columns aligned on the right (counts). */
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const columns = header.map((title, i) => ({ title, right: rightAligned.has(i) }));
  return formatColumns(columns, rows, plain);
}
