/** What `provd risks` prints: one line a risk, the tool calls' the gate judged first, then the events'. */
import type { SecurityRisk, SecurityRisks } from '../../security/security-risks.js';
import { formatColumns, type Column } from '../output/columns.js';
import type { Style } from '../output/style.js';
import { utcTime } from '../output/time-text.js';
import { evidencePaint, riskPaint } from './evidence-paint.js';

const columns: Column[] = [
  { title: 'TIME (UTC)' },
  { title: 'SEVERITY', paint: riskPaint },
  { title: 'DECISION', paint: (cell) => riskPaint(cell.split(':')[0]!) },
  { title: 'RULE' },
  { title: 'TOOL CALL' },
  { title: 'EVIDENCE', paint: evidencePaint },
  { title: 'RISK' },
  { title: 'REASON', flex: true },
];

/** The page's risks, or a sentence when the policy judged none of the run's events risky. */
export function formatRisks(page: SecurityRisks, style: Style): string {
  if (page.risks.length === 0) return `no risks in run ${page.run_id}\n`;
  const rows = page.risks.map((risk) => [
    utcTime(risk.evidence[0]?.time ?? risk.detected_at),
    risk.severity,
    decisionText(risk),
    risk.rule_id,
    toolCallText(risk),
    risk.evidence_level,
    risk.risk_id,
    risk.advisory === null
      ? risk.reason
      : `${risk.reason} (advisory: ${risk.advisory.rule_id} would ${risk.advisory.decision})`,
  ]);
  return formatColumns(columns, rows, style);
}

/** The tool call, with its tool's name for the gate's decision on it: `toolu_01 (Bash)`. */
function toolCallText(risk: SecurityRisk): string {
  const name = risk.tool_call?.tool_name ?? null;
  return risk.tool_call_id === null
    ? '-'
    : name === null
      ? risk.tool_call_id
      : `${risk.tool_call_id} (${name})`;
}

/** The decision with what became of it: `kill: not enforced, the command had ended`. */
export function decisionText(risk: Pick<SecurityRisk, 'decision' | 'response'>): string {
  return `${risk.decision}: ${risk.response.outcome}`;
}
