/** `provd hooks install --agent A`: provd's hooks into the agent's settings. */
import { Command, Option } from 'clipanion';
import { installHooks } from '../../agents/install/hooks-install.js';
import { hookTimeoutSeconds } from '../../agents/install/hook-targets.js';
import { HooksCommand } from '../hooks-command.js';
import { writeJson } from '../output/json-out.js';
import { printable } from '../output/printable.js';
import { hooksBody, installText } from '../render/hooks-text.js';

export class HooksInstallCommand extends HooksCommand {
  static override paths = [['hooks', 'install']];

  static override usage = Command.Usage({
    category: 'Agents',
    description: "Write provd's hooks into an agent's settings (Claude Code, Codex, Gemini CLI)",
    details: `
      Adds, for each event provd reads, one hook running provd's hook client
      (\`provd-hook AGENT [--socket PATH]\`) to the agent's settings: the user's (\`~/.claude/settings.json\`
      or \`$CLAUDE_CONFIG_DIR\`, \`~/.codex/hooks.json\` or \`$CODEX_HOME\`, \`~/.gemini/settings.json\`
      or \`$GEMINI_CLI_HOME/.gemini\`), or with \`--project\` the current directory's. Every other hook
      and setting stays byte for byte; an older provd hook is replaced, never duplicated, and a second
      install changes nothing. The file as it was before provd first changed it is kept beside it as
      \`FILE.provd-backup\`. Each hook times out after ${hookTimeoutSeconds} s. Codex also gets
      \`[features] hooks = true\` in its config.toml. Needs no daemon.

      Exit code 0; 1 when a settings file is not valid JSON or TOML (named with its line, left
      untouched); 2 for bad usage.
    `,
    examples: [
      ['Watch Claude Code', '$0 hooks install --agent claude'],
      ["This project's Gemini CLI, as a dry run", '$0 hooks install --agent gemini --project --dry-run'],
    ],
  });

  socket = Option.String('--socket', {
    description: "the daemon's hook socket the client uses (default its own)",
  });
  dryRun = Option.Boolean('--dry-run', false, { description: 'say what would change, write nothing' });

  execute(): Promise<number> {
    return Promise.resolve(this.run());
  }

  private run(): number {
    const request = this.request(this.socket, this.dryRun);
    if (typeof request === 'number') return request;
    return this.runStep(() => {
      const outcome = installHooks(request);
      if (this.json) writeJson(this.context.stdout, hooksBody('install', outcome, this.dryRun));
      else this.context.stdout.write(printable(installText(outcome, this.dryRun), '\n'));
      return 0;
    });
  }
}
