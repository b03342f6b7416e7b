/** `provd ai mcp`: the MCP server of the AI tools, on stdin and stdout. */
import { Command } from 'clipanion';
import { DaemonClientCommand } from '../daemon-client-command.js';

export class AiMcpCommand extends DaemonClientCommand {
  static override paths = [['ai', 'mcp']];

  static override usage = Command.Usage({
    category: 'AI tools',
    description: 'Serve the AI tools over MCP on stdin and stdout',
    details: `
      Speaks MCP (JSON-RPC 2.0 over stdio, protocol revision 2025-06-18) to the client that
      spawned it: \`initialize\`, then \`tools/list\` (the nine tools of \`provd ai tools\`), then
      \`tools/call\`. Each call goes to the daemon at \`--url\` with \`PROVD_AUTH_TOKEN\`; a result
      holds the daemon's JSON as text and as \`structuredContent\` (and, about a run, a link to its
      page in the web view at \`--url\`), a failure is an \`isError\`
      result with the daemon's error code and message. Only JSON-RPC is written to stdout;
      diagnostics go to stderr. It runs until the client closes stdin, and starts even when the
      daemon is down (each call then says so).
    `,
    examples: [['In an MCP client configuration', '$0 ai mcp --url http://127.0.0.1:8574']],
  });

  protected async executeAt(baseUrl: string): Promise<number> {
    const { stdin, stdout, stderr } = this.context;
    // the MCP SDK loads only when this command runs
    const [{ serveMcpStdio }, { daemonDispatcher }] = await Promise.all([
      import('../../ai/mcp-server.js'),
      import('../ai-dispatcher.js'),
    ]);
    await serveMcpStdio(daemonDispatcher(baseUrl), { stdin, stdout, stderr, daemonUrl: baseUrl });
    return 0;
  }
}
