/** `provd policy check FILE [--json]`: loads a rules file as `provd daemon --policy FILE` would. */
import { Command, Option } from 'clipanion';
import { defaultRules } from '../../security/policy/default-policy.js';
import { defaultAllowRule, type PolicyRule, type RuleMatch } from '../../security/policy/policy.js';
import { loadPolicyFile, PolicyFileError } from '../../security/policy/policy-file.js';
import { usageExitCode } from '../daemon-client-command.js';
import { printable } from '../output/printable.js';
import { formatTable } from '../output/text-table.js';

/** Exit code of a file that was read and is wrong. */
const invalidExitCode = 1;

export class PolicyCheckCommand extends Command {
  static override paths = [['policy', 'check']];

  static override usage = Command.Usage({
    description: 'Check a policy rules file and print its rules in the order they decide',
    details: `
      Loads FILE (YAML or JSON) with the loader \`provd daemon --policy FILE\` uses, so a file this
      command accepts is one the daemon starts with. Prints every rule, first match wins: the
      file's rules, then the built-in rules it does not replace (unless \`include_default_rules:
      false\`), then \`default_allow\`. Needs no daemon.

      Exit code 0 when the file is valid; 1 when it is not (the message says FILE:LINE where the
      mistake can be placed); 2 for bad usage or a FILE that cannot be read.
    `,
    examples: [
      ['Check a rules file', '$0 policy check /etc/provd/policy.yaml'],
      ['The rules as JSON', '$0 policy check --json policy.json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'print the result as JSON' });
  file = Option.String({ name: 'FILE' });

  async execute(): Promise<number> {
    const { stdout, stderr } = this.context;
    try {
      const { policy } = await loadPolicyFile(this.file);
      const rules = [...policy.rules.map((rule) => ({ ...rule, origin: originOf(rule) })), allowRule];
      if (this.json)
        stdout.write(JSON.stringify({ ...checkBody(this.file, true), rules, error: null }, null, 2) + '\n');
      else {
        const rows = rules.map((rule) => [
          rule.id,
          matchText(rule.match),
          rule.decision,
          rule.mode,
          rule.origin,
        ]);
        stdout.write(`${printable(this.file)}: valid, ${rules.length} rules, first match wins\n`);
        stdout.write(
          formatTable(
            ['RULE_ID', 'MATCH', 'DECISION', 'MODE', 'FROM'],
            rows.map((row) => row.map((cell) => printable(cell))),
          ),
        );
      }
      return 0;
    } catch (error) {
      if (!(error instanceof PolicyFileError)) throw error;
      // the loader's message starts with `policy FILE: `; FILE:LINE is said here instead
      const message = error.message.replace(/^policy .*?: /s, '');
      if (error.reason === 'unreadable') {
        stderr.write(`provd: ${printable(this.file)}: ${printable(message)}\n`);
        return usageExitCode;
      }
      const place = error.line === undefined ? this.file : `${this.file}:${error.line}`;
      if (this.json) {
        const body = {
          ...checkBody(this.file, false),
          rules: null,
          error: { message, line: error.line ?? null },
        };
        stdout.write(JSON.stringify(body, null, 2) + '\n');
      }
      stderr.write(`${printable(place)}: ${printable(message, '\n')}\n`);
      return invalidExitCode;
    }
  }
}

function checkBody(file: string, valid: boolean): { schema_version: string; file: string; valid: boolean } {
  return { schema_version: 'provenance.policy_check/v1', file, valid };
}

/** The rule that answers when none matches: listed last, so the output is the whole decision order. */
const allowRule = {
  id: defaultAllowRule,
  description: 'Anything no rule matched',
  decision: 'allow',
  severity: 'info',
  mode: 'enforce',
  reason: 'no rule matched',
  match: [] as RuleMatch[],
  origin: 'built-in',
};

/** `built-in` for a built-in rule the file kept, `file` for the file's own rules. */
function originOf(rule: PolicyRule): string {
  return defaultRules.includes(rule) ? 'built-in' : 'file';
}

/** A rule's blocks as one line: conditions joined by `and`, blocks by `or`. */
function matchText(match: readonly RuleMatch[]): string {
  if (match.length === 0) return '(anything else)';
  return match
    .map((block) =>
      Object.entries(block)
        .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : String(value)}`)
        .join(' and '),
    )
    .join(' or ');
}
