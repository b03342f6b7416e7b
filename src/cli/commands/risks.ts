/** `provd risks RUN`: what the policy judged risky in a run, one line a risk. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { SecurityRisks } from '../../security/security-risks.js';
import { formatRisks } from '../render/risks-text.js';
import { RunPageCommand } from '../run-page-command.js';

export class RisksCommand extends RunPageCommand<SecurityRisks> {
  static override paths = [['risks']];

  static override usage = Command.Usage({
    description: "List a run's risks: the policy decisions on its agent's tool calls and on its events",
    details: `
      Prints one page of \`GET /v1/security/risks\`, the gate's decisions on the agent's tool calls
      (its PreToolUse hooks) first: for each risk the time of its event or decision (UTC), its
      severity, the decision (\`kill\`, \`quarantine\`, \`deny\`; \`allow\` with an advisory) with what
      became of it (\`kill: not enforced, the command had ended\`; \`provd responses\` says more), the rule,
      the tool call (with the tool's name for a tool call's), the evidence level, the risk id (\`provd explain --risk ID\` explains it) and the
      reason. stderr names the \`--cursor\` of the next page when more follow. With \`--json\`,
      prints the \`provenance.security_risks/v1\` body unchanged.

      Exit code 0 when printed (risks found or not), 1 when the daemon answered an error (an
      unknown run, a bad cursor, a wrong token), 2 when it cannot be reached or for bad usage.
    `,
    examples: [['The risks of a run', '$0 risks run-1']],
  });

  protected readonly what = 'risks';
  protected readonly endpoint = '/v1/security/risks';
  protected readonly schema = 'provenance.security_risks/v1';
  protected readonly isPage = typia.createIs<SecurityRisks>();
  protected readonly format = formatRisks;
}
