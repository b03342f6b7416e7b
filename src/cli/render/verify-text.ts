/** What `provd verify` prints: the verdict line first, with its counts, then one line an issue. */
import type { VerifyResult } from '../../provenance/verify-result.js';
import { formatColumns, type Column } from '../output/columns.js';
import { visible, type Paint, type Style } from '../output/style.js';

const verdictPaint: Record<VerifyResult['status'], Paint> = {
  ok: 'green',
  failed: 'red',
  unavailable: 'yellow',
};

const issueColumns: Column[] = [
  { title: 'SEVERITY', paint: (cell) => (cell === 'error' ? 'red' : 'yellow') },
  { title: 'KIND' },
  { title: 'ID' },
  { title: 'MESSAGE', flex: true },
];

/** `verify run-1: ok (0 issues: 0 errors, 0 warnings)`, why it could not complete, then the issues. */
export function formatVerify(result: VerifyResult, style: Style): string {
  const counts =
    `${result.issue_count} ${plural(result.issue_count, 'issue')}: ` +
    `${result.error_count} ${plural(result.error_count, 'error')}, ` +
    `${result.warning_count} ${plural(result.warning_count, 'warning')}`;
  let text = `verify ${visible(result.run_id)}: ${style.paint(result.status, verdictPaint[result.status])} (${counts})\n`;
  if (result.error !== undefined) text += `could not complete: ${visible(result.error)}\n`;
  const issues = result.issues ?? [];
  if (issues.length > 0) {
    const rows = issues.map((issue) => [issue.severity, issue.kind, issue.id, issue.message]);
    text += '\n' + formatColumns(issueColumns, rows, style);
  }
  return text;
}

/** `word` with an `s` unless `count` is 1. */
export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
