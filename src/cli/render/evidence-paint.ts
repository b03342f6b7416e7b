/** The colours of the values a person scans for: evidence levels, severities, decisions. */
import type { Paint } from '../output/style.js';

/** kernel_correlated is independent evidence; what an agent asserted, or nothing tied, stands out. */
export function evidencePaint(level: string): Paint | undefined {
  if (level === 'kernel_correlated') return 'green';
  if (level === 'uncorrelated') return 'yellow';
  return undefined;
}

/** critical/high and kill/deny/quarantine in red, the rest in yellow, allow unpainted. */
export function riskPaint(value: string): Paint | undefined {
  if (['critical', 'high', 'kill', 'deny', 'quarantine'].includes(value)) return 'red';
  if (['medium', 'low', 'info'].includes(value)) return 'yellow';
  return undefined;
}
