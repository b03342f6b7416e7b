/** A text table for the terminal: a header line, then one line a row, columns padded to line up. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  /** Columns aligned on the right (counts). */
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        rightAligned.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}
