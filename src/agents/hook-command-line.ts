/**
 * The shapes a genuine hook takes in /proc: the hook client's own command line (`provd-hook AGENT
 * [--socket PATH]`, hook-command.ts), and the shell an agent runs it with (`sh -c 'provd-hook
 * AGENT'`: Claude Code's dash forks it; Codex's and Gemini's bash exec it in place). A command
 * line is what a process exec'd with, so these shapes are necessary for a hook, never sufficient:
 * a tool call can exec the very same (hook-caller-trust.ts).
 */
import { basename } from 'node:path';

const clientName = 'provd-hook';
const shells = new Set(['sh', 'bash', 'dash']);

/** True when argv is the hook client run for `agent`. */
export function isHookClientLine(argv: readonly string[], agent: string): boolean {
  if (argv.length !== 2 && argv.length !== 4) return false;
  if (basename(argv[0]!) !== clientName || argv[1] !== agent) return false;
  return argv.length === 2 || (argv[2] === '--socket' && argv[3] !== '');
}

/** True when argv is a shell running exactly the hook client's command line for `agent`, nothing else. */
export function isHookShellLine(argv: readonly string[], agent: string): boolean {
  if (argv.length !== 3 || !shells.has(basename(argv[0]!)) || argv[1] !== '-c') return false;
  const words = shellWords(argv[2]!);
  return words !== null && isHookClientLine(words, agent);
}

/** The words of a command text made only of plain and single-quoted words; null for anything else. */
function shellWords(text: string): string[] | null {
  const word = /(?:'([^']*)'|([A-Za-z0-9_./+@:=,%-]+))(?: +|$)/y;
  const words: string[] = [];
  const trimmed = text.trim();
  while (word.lastIndex < trimmed.length) {
    const match = word.exec(trimmed);
    if (match === null) return null;
    words.push(match[1] ?? match[2]!);
  }
  return words;
}
