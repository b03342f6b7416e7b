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

/** The page's entries in time order, or a sentence when the run has none. */
export function formatTimeline(page: TimelineTable, style: Style): string {
  if (page.entries.length === 0) return `run ${page.run_id} has no timeline entries yet\n`;
  const rows = page.entries.map((entry) => [
    utcTime(entry.time),
    entry.kind,
    entry.tool_call_id ?? '-',
    entry.evidence_level,
    entry.kind === 'event' && entry.risk !== null
      ? `${entry.summary} [${decisionText(entry.risk)}]`
      : entry.summary,
  ]);
  return formatColumns(columns, rows, style);
}
