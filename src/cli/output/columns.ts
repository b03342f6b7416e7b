/**
 * Aligned columns, as `tetra getevents -o compact` and `falco` users expect: a header, one line a
 * row, two spaces between columns. On a terminal the flexible column is cut so a row fits the
 * width; a pipe gets whole values (a value wider than its column then pushes the rest right).
 */
import { truncate, visible, type Paint, type Style } from './style.js';

/** One column: its title, and how its cells are aligned and coloured. */
export interface Column {
  title: string;
  /** Counts line up on the right. */
  right?: boolean;
  /** The one column cut to the terminal's width (else the last). */
  flex?: boolean;
  /** A fixed width, for rows printed as they come (`events --follow`) rather than measured. */
  width?: number;
  /** The colour of a cell, from its text. */
  paint?: (cell: string) => Paint | undefined;
}

// a flexible column keeps at least this much of its value on a narrow terminal
const minFlexWidth = 12;

/** The widths of `columns`: fixed, else the widest of title and cells; the flexible one fitted to a terminal. */
export function columnWidths(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  style: Style,
): number[] {
  const widths = columns.map(
    (column, i) =>
      column.width ?? Math.max(column.title.length, ...rows.map((row) => visible(row[i] ?? '').length)),
  );
  const flexAt = columns.findIndex((column) => column.flex === true);
  const flex = flexAt < 0 ? columns.length - 1 : flexAt;
  if (style.width !== undefined && flex >= 0) {
    const others = widths.reduce((sum, width, i) => (i === flex ? sum : sum + width + 2), 0);
    widths[flex] = Math.min(widths[flex]!, Math.max(minFlexWidth, style.width - others));
  }
  return widths;
}

/** One line of cells (or the titles, in bold, when `header`), ending in a newline. */
export function formatRow(
  columns: readonly Column[],
  widths: readonly number[],
  cells: readonly string[],
  style: Style,
  header = false,
): string {
  const last = cells.length - 1;
  const line = cells.map((value, i) => {
    const raw = visible(value);
    const column = columns[i]!;
    const width = widths[i]!;
    // only a terminal cuts: what goes to a pipe or file is whole
    const cell = style.width === undefined ? raw : truncate(raw, width);
    const padded = column.right === true ? cell.padStart(width) : i === last ? cell : cell.padEnd(width);
    return style.paint(padded, header ? 'bold' : column.paint?.(raw));
  });
  // an empty last cell leaves no trailing blanks
  return line.join('  ').trimEnd() + '\n';
}

/** The rows under their columns' titles. */
export function formatColumns(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  style: Style,
): string {
  const widths = columnWidths(columns, rows, style);
  const titles = columns.map((column) => column.title);
  return [titles, ...rows].map((cells, i) => formatRow(columns, widths, cells, style, i === 0)).join('');
}
