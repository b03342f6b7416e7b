/** `provd ai tools [--provider anthropic|openai|mcp]`: the nine AI tools, or their provider schemas. */
import { Command, Option } from 'clipanion';
import { providers, type Provider } from '../../ai/providers.js';
import { usageExitCode } from '../daemon-client-command.js';
import { formatTable } from '../output/text-table.js';

export class AiToolsCommand extends Command {
  static override paths = [['ai', 'tools']];

  static override usage = Command.Usage({
    category: 'AI tools',
    description: "List the AI tools, or print them in a provider's tool-definition format",
    details: `
      Without options, prints the nine tools as a table: name, kind (read, gate, write), whether
      they are read-only, and title. With \`--provider\`, prints them as one JSON array in that
      provider's format: \`anthropic\` (Messages API \`tools\`), \`openai\` (Chat Completions
      function tools) or \`mcp\` (the tools of \`provd ai mcp\`'s tools/list, with output schemas and
      annotations); \`--json\` alone is \`--provider mcp\`. Every format comes from the one catalog
      \`provd ai mcp\` and \`provd ai call\` use. Needs no daemon.

      Exit code 0, or 2 for bad usage.
    `,
    examples: [
      ['The tools', '$0 ai tools'],
      ['Tool definitions for the Anthropic API', '$0 ai tools --provider anthropic'],
    ],
  });

  provider = Option.String('--provider', { description: `tool-definition format: ${providers.join(', ')}` });
  json = Option.Boolean('--json', false, { description: 'print the MCP tool definitions as JSON' });

  async execute(): Promise<number> {
    // the catalog's schemas load only when this command runs
    const { catalog } = await import('../../ai/catalog.js');
    const { stdout, stderr } = this.context;
    const provider = this.provider ?? (this.json ? 'mcp' : undefined);
    if (provider === undefined) {
      const rows = catalog.map((tool) => [
        tool.name,
        tool.kind,
        tool.kind === 'write' ? 'no' : 'yes',
        tool.title,
      ]);
      stdout.write(formatTable(['TOOL', 'KIND', 'READ-ONLY', 'TITLE'], rows));
      return 0;
    }
    if (!isProvider(provider)) {
      stderr.write(
        `provd: PROVD_ERR_CONFIG_INVALID: --provider must be one of ${providers.join(', ')}, got "${provider}"\n`,
      );
      return usageExitCode;
    }
    const { providerTools } = await import('../../ai/provider-schemas.js');
    stdout.write(JSON.stringify(providerTools(provider), null, 2) + '\n');
    return 0;
  }
}

function isProvider(name: string): name is Provider {
  return (providers as readonly string[]).includes(name);
}
