/**
 * What `provd events` prints: one line an event, like `tetra getevents -o compact`. A page is
 * measured; `--follow` prints each event as it comes, so its columns have fixed widths.
 */
import type { TelemetryEvent } from '../../telemetry/event-json.js';
import { eventObject } from '../../views/timeline/entry-summary.js';
import { columnWidths, formatColumns, formatRow, type Column } from '../output/columns.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { evidencePaint } from './evidence-paint.js';

const columns: Column[] = [
  { title: 'TIME (UTC)', width: 23 },
  { title: 'TYPE', width: 13 },
  { title: 'PROCESS', width: 20 },
  { title: 'TOOL CALL', width: 14 },
  { title: 'EVIDENCE', width: 17, paint: evidencePaint },
  { title: 'DETAIL', flex: true },
];
// a page measures its cells: the fixed widths are for lines printed one at a time
const measured: Column[] = columns.map(({ width: _fixed, ...column }) => column);

/** The cells of one event: `comm[pid]` for its process, what it acted on for its detail. */
function eventCells(event: TelemetryEvent): string[] {
  return [
    utcTime(event.time),
    event.type,
    `${event.comm ?? '?'}[${event.tgid ?? event.pid ?? '?'}]`,
    event.tool_call_id ?? '-',
    event.correlation.evidence_level,
    eventObject(event.attrs) || commandOf(event),
  ];
}

/** The command line a producer sent as text (Falco's proc.cmdline), when no argv came. */
function commandOf(event: TelemetryEvent): string {
  const command = event.attrs['command'];
  return typeof command === 'string' ? command : '';
}

/** A page of events under a header, or a sentence when there is none. */
export function formatEvents(where: string, events: readonly TelemetryEvent[], style: Style): string {
  if (events.length === 0) return `no events in ${where}\n`;
  return formatColumns(measured, events.map(eventCells), style);
}

/** Lines printed as events arrive, with fixed column widths. */
export class EventLines {
  private readonly widths: number[];

  constructor(private readonly style: Style) {
    this.widths = columnWidths(columns, [], style);
  }

  /** The header line. */
  header(): string {
    return formatRow(
      columns,
      this.widths,
      columns.map((column) => column.title),
      this.style,
      true,
    );
  }

  /** One event's line. */
  line(event: TelemetryEvent): string {
    return formatRow(columns, this.widths, eventCells(event), this.style);
  }
}
