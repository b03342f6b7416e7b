/** What `provd responses` prints: one line a response, in the order of the events judged. */
import type { SecurityResponses } from '../../security/responses/security-responses.js';
import { formatColumns, type Column } from '../output/columns.js';
import type { Style } from '../output/style.js';
import { riskPaint } from './evidence-paint.js';
import { decisionText } from './risks-text.js';

const columns: Column[] = [
  { title: 'DECISION', paint: (cell) => riskPaint(cell.split(':')[0]!) },
  { title: 'STATUS', paint: (cell) => (cell === 'enforced' ? 'green' : undefined) },
  { title: 'ACTOR' },
  { title: 'TARGET' },
  { title: 'RULE' },
  { title: 'TOOL CALL' },
  { title: 'RISK' },
  { title: 'REASON', flex: true },
];

/** The page's responses, or a sentence when the run has no risk to respond to. */
export function formatResponses(page: SecurityResponses, style: Style): string {
  if (page.responses.length === 0) return `no responses in run ${page.run_id}: it has no risks\n`;
  const rows = page.responses.map((response) => [
    decisionText({ decision: response.decision, response }),
    response.status,
    response.actor,
    `${response.target.kind} ${response.target.id}`,
    response.rule_id,
    response.tool_call_id ?? '-',
    response.risk_id,
    response.reason,
  ]);
  return formatColumns(columns, rows, style);
}
