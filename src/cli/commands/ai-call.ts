/** `provd ai call TOOL --input JSON|-`: runs one AI tool through the same dispatcher as the MCP server. */
import { Command, Option } from 'clipanion';
import { tokenHint } from '../daemon-error.js';
import { ProvdError } from '../../shared/errors.js';
import { DaemonClientCommand } from '../daemon-client-command.js';

export class AiCallCommand extends DaemonClientCommand {
  static override paths = [['ai', 'call']];

  static override usage = Command.Usage({
    category: 'AI tools',
    description: 'Run one AI tool against the daemon and print its result',
    details: `
      Checks INPUT (a JSON object, or \`-\` to read it from stdin) against TOOL's input schema,
      sends the daemon the request the tool stands for, and prints the result as JSON: the same
      path an MCP client takes through \`provd ai mcp\`, under the same trust boundary
      (\`bind_scope\` writes \`ai_asserted\` bindings, \`record_tool_call\` never executes).
      \`provd ai tools\` lists the tools.

      Exit code 0 when the tool answered, 1 when it failed (the error's code and message on
      stderr; with \`--json\`, the \`provenance.error/v1\` body on stdout), 2 when the daemon
      cannot be reached or for bad usage (unknown tool, INPUT not a JSON object).
    `,
    examples: [
      ['Verify a run', `$0 ai call verify_run --input '{"run":"run-42"}'`],
      [
        'Ask the gate',
        `echo '{"event_type":"file_open","path":"/etc/shadow"}' | $0 ai call evaluate_action --input -`,
      ],
    ],
  });

  tool = Option.String({ name: 'TOOL' });
  input = Option.String('--input', '{}', {
    description: 'the input as a JSON object, or - for stdin (default {})',
  });
  json = Option.Boolean('--json', false, {
    description: 'print one compact JSON line, the error body included when the tool fails',
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdout, stderr } = this.context;
    // the catalog's schemas (zod, ajv) load only when this command runs: every other command
    // started ~0.2 s of CPU sooner without them
    const [{ findTool, toolNames }, { daemonDispatcher }, { failureBody }] = await Promise.all([
      import('../../ai/catalog.js'),
      import('../ai-dispatcher.js'),
      import('../../ai/tool-outcome.js'),
    ]);
    const tool = findTool(this.tool);
    if (tool === undefined)
      return this.refuseUsage(
        new ProvdError(
          'PROVD_ERR_CLI_USAGE',
          `unknown tool "${this.tool}"; the tools are ${toolNames.join(', ')}`,
        ),
      );
    let input: unknown;
    try {
      input = await this.readInput();
    } catch (error) {
      return this.refuseUsage(error);
    }
    const outcome = await daemonDispatcher(baseUrl).call(tool, input);
    const print = (body: unknown): boolean =>
      stdout.write(this.json ? JSON.stringify(body) + '\n' : JSON.stringify(body, null, 2) + '\n');
    if (outcome.ok) {
      print(outcome.body);
      return 0;
    }
    const { code, message } = outcome.failure;
    if (this.json) print(failureBody(outcome.failure));
    else stderr.write(`provd: ${code}: ${message}${code === 'unauthorized' ? tokenHint() : ''}\n`);
    return code === 'PROVD_ERR_CLI_UNREACHABLE' ? 2 : 1;
  }

  /** `--input` parsed: a JSON object, from the option or (`-`) from stdin. */
  private async readInput(): Promise<unknown> {
    const text = this.input === '-' ? await readAll(this.context.stdin) : this.input;
    const from = this.input === '-' ? 'stdin' : '--input';
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw new ProvdError(
        'PROVD_ERR_CLI_USAGE',
        `${from} must be a JSON object: ${(error as Error).message}`,
      );
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new ProvdError(
        'PROVD_ERR_CLI_USAGE',
        `${from} must be a JSON object, got ${JSON.stringify(input)?.slice(0, 40)}`,
      );
    return input;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(typeof part === 'string' ? Buffer.from(part) : part);
  return Buffer.concat(parts).toString('utf8');
}
