/** `provd hooks print --agent A`: the settings file install would write, written nowhere. */
import { Command, Option } from 'clipanion';
import { installHooks } from '../../agents/install/hooks-install.js';
import { HooksCommand } from '../hooks-command.js';
import { writeJson } from '../output/json-out.js';
import { hooksBody } from '../render/hooks-text.js';

export class HooksPrintCommand extends HooksCommand {
  static override paths = [['hooks', 'print']];

  static override usage = Command.Usage({
    category: 'Agents',
    description: 'Print the settings file `provd hooks install` would write, writing nothing',
    details: `
      Prints the whole settings file as install would leave it: the file as it is, with provd's
      hooks merged in. For Codex, two files: its hooks.json and its config.toml, each after a line
      \`==> PATH <==\`. With \`--json\`, install's outcome with each file's \`text\`.

      Exit code 0; 1 when a settings file is not valid JSON or TOML; 2 for bad usage.
    `,
    examples: [['What install would write for Claude Code', '$0 hooks print --agent claude']],
  });

  socket = Option.String('--socket', {
    description: "the daemon's hook socket the client uses (default its own)",
  });

  execute(): Promise<number> {
    return Promise.resolve(this.run());
  }

  private run(): number {
    const request = this.request(this.socket, true);
    if (typeof request === 'number') return request;
    return this.runStep(() => {
      const outcome = installHooks(request);
      if (this.json) writeJson(this.context.stdout, hooksBody('print', outcome, true));
      else
        for (const file of outcome.files)
          this.context.stdout.write((outcome.files.length > 1 ? `==> ${file.path} <==\n` : '') + file.text);
      return 0;
    });
  }
}
