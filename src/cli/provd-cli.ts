/** provd's clipanion Cli: colours only on a terminal, and option values named in every usage. */
import { Cli } from 'clipanion';
import { nameOptionValues } from './option-values.js';

/**
 * Whether to colour what goes to `stream`: never when NO_COLOR is set (https://no-color.org) or
 * the stream is not a terminal (clipanion asks the terminal type only, so a pipe got escapes).
 */
export function usesColors(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env['NO_COLOR'] && env['TERM'] !== 'dumb';
}

/** The Cli whose usage texts say `--listen HOST:PORT` rather than clipanion's `--listen #0`. */
export class ProvdCli extends Cli {
  // every usage line and option list of every command is built here
  protected override getUsageByIndex(
    n: number,
    opts?: { detailed?: boolean; inlineOptions?: boolean },
  ): { usage: string; options: { definition: string; description: string; required: boolean }[] } {
    const { usage, options } = super.getUsageByIndex(n, opts);
    return {
      usage: nameOptionValues(usage),
      options: options.map((option) => ({ ...option, definition: nameOptionValues(option.definition) })),
    };
  }
}
