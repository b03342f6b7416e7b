/** `provd hooks` alone: the usage of its three commands, as bad usage (exit 2). */
import { Command } from 'clipanion';
import { usageExitCode } from '../daemon-client-command.js';
import { HooksInstallCommand } from './hooks-install.js';
import { HooksPrintCommand } from './hooks-print.js';
import { HooksUninstallCommand } from './hooks-uninstall.js';

export class HooksUsageCommand extends Command {
  static override paths = [['hooks']];

  static override usage = Command.Usage({
    category: 'Agents',
    description: "Install, remove or print provd's hooks in an agent's settings",
  });

  execute(): Promise<number> {
    return Promise.resolve(this.run());
  }

  private run(): number {
    const usages = [HooksInstallCommand, HooksUninstallCommand, HooksPrintCommand].map((command) =>
      this.cli.usage(command).trimEnd(),
    );
    this.context.stderr.write(
      `provd hooks needs a command: install, uninstall or print\n\n${usages.join('\n')}\n\nMore: provd hooks install --help\n`,
    );
    return usageExitCode;
  }
}
