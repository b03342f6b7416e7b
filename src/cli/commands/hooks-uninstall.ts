/** `provd hooks uninstall --agent A`: exactly provd's hooks out of the agent's settings. */
import { Command } from 'clipanion';
import { uninstallHooks } from '../../agents/install/hooks-install.js';
import { HooksCommand } from '../hooks-command.js';
import { writeJson } from '../output/json-out.js';
import { printable } from '../output/printable.js';
import { hooksBody, uninstallText } from '../render/hooks-text.js';

export class HooksUninstallCommand extends HooksCommand {
  static override paths = [['hooks', 'uninstall']];

  static override usage = Command.Usage({
    category: 'Agents',
    description: "Remove provd's hooks from an agent's settings",
    details: `
      Removes every hook that runs provd's hook client, and nothing else: hooks added before or
      after install stay. When the file then holds what its \`FILE.provd-backup\` holds (nothing else
      changed since install), the backup's bytes are put back and the backup removed; otherwise the
      backup stays. Needs no daemon.

      Exit code 0; 1 when the settings file is not valid JSON (named with its line, left
      untouched); 2 for bad usage.
    `,
    examples: [['Stop watching Codex', '$0 hooks uninstall --agent codex']],
  });

  execute(): Promise<number> {
    return Promise.resolve(this.run());
  }

  private run(): number {
    const request = this.request(undefined, false);
    if (typeof request === 'number') return request;
    return this.runStep(() => {
      const outcome = uninstallHooks(request);
      if (this.json) writeJson(this.context.stdout, hooksBody('uninstall', outcome, false));
      else this.context.stdout.write(printable(uninstallText(outcome, false), '\n'));
      return 0;
    });
  }
}
