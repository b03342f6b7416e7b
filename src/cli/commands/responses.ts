/** `provd responses RUN`: what provd did about each risk of a run, or what the caller should do. */
import { Command } from 'clipanion';
import typia from 'typia';
import type { SecurityResponses } from '../../security/responses/security-responses.js';
import { formatResponses } from '../render/responses-text.js';
import { RunPageCommand } from '../run-page-command.js';

export class ResponsesCommand extends RunPageCommand<SecurityResponses> {
  static override paths = [['responses']];

  static override usage = Command.Usage({
    description: "List a run's responses: what became of each risk's decision",
    details: `
      Prints one page of \`GET /v1/security/responses\`, one response a risk, in the order of the
      events judged: the decision with what became of it (\`kill: enforced, 2 processes of cgroup
      4711 killed\`, \`kill: not enforced, the command had ended\`), the status (\`enforced\`,
      \`not_enforced\`, \`recommended\`, \`not_required\`), who carries it out (\`provd\`, \`caller\`,
      \`none\`), the target, the rule, the tool call, the risk id and the reason. provd enforces only
      \`kill\`, and only on commands it runs (\`provd record\`). stderr names the \`--cursor\` of the
      next page when more follow. With \`--json\`, prints the \`provenance.security_responses/v1\`
      body unchanged.

      Exit code 0 when printed (responses found or not), 1 when the daemon answered an error (an
      unknown run, a bad cursor, a wrong token), 2 when it cannot be reached or for bad usage.
    `,
    examples: [['The responses of a run', '$0 responses run-1']],
  });

  protected readonly what = 'responses';
  protected readonly endpoint = '/v1/security/responses';
  protected readonly schema = 'provenance.security_responses/v1';
  protected readonly isPage = typia.createIs<SecurityResponses>();
  protected readonly format = formatResponses;
}
