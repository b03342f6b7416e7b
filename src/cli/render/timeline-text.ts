/** What `provd timeline` prints: the table view as aligned columns, one line an entry. */
import type { TimelineTable } from '../../views/timeline/timeline-table.js';
import { formatColumns, type Column } from '../output/columns.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { evidencePaint } from './evidence-paint.js';
import { decisionText } from './risks-text.js';

const columns: Column[] = [
  { title: 'TIME (UTC)' },
  { title: 'KIND' },
  { title: 'TOOL CALL' },
  { title: 'EVIDENCE', paint: evidencePaint },
  { title: 'SUMMARY', flex: true },
];

/**
 * The page's entries in time order (a loader or locale open marked `[loader]`), or a sentence when
 * the run has none; then the run's loader and locale opens counted on one line.
 */
export function formatTimeline(page: TimelineTable, style: Style): string {
  const hidden = hiddenLine(page);
  if (page.entries.length === 0) return `run ${page.run_id} has no timeline entries yet\n${hidden}`;
  const rows = page.entries.map((entry) => [
    utcTime(entry.time),
    entry.kind,
    entry.tool_call_id ?? '-',
    entry.evidence_level,
    entry.kind === 'event'
      ? entry.summary +
        (entry.risk !== null ? ` [${decisionText(entry.risk)}]` : '') +
        (entry.loader_locale ? ' [loader]' : '')
      : entry.summary,
  ]);
  return formatColumns(columns, rows, style) + hidden;
}

/** `6 loader and locale opens of the run not listed (--all lists them)`, or nothing for none (the table's and the tree's). */
export function hiddenLine({
  loader_locale_opens: count,
  all,
}: Pick<TimelineTable, 'loader_locale_opens' | 'all'>): string {
  if (count === 0) return '';
  const what = `${count} loader and locale ${count === 1 ? 'open' : 'opens'} of the run`;
  return all ? `(${what} listed, marked [loader])\n` : `${what} not listed (--all lists them)\n`;
}
