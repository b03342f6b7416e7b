/**
 * provd's entries in an agent's `hooks` object (Claude Code, Codex and Gemini CLI share its shape:
 * per event, a list of `{matcher, hooks: [{type, command, timeout}]}` groups). A hook is provd's
 * when its command runs a program named `provd-hook`, wherever it was built: so an entry an older
 * provd (or another clone) installed is replaced, never duplicated, and nothing else is touched.
 */
import { isDeepStrictEqual } from 'node:util';
import { basename } from 'node:path';
import { hookClientPath } from '../hook-command.js';
import type { HookTarget } from './hook-targets.js';

const clientName = 'provd-hook';

/** The hook command line: `provd-hook AGENT [--socket PATH]`, quoted for the shell that runs it. */
export function hookCommandLine(agent: string, socket: string | null): string {
  const words = [hookClientPath(), agent, ...(socket === null ? [] : ['--socket', socket])];
  return words.map(shellQuote).join(' ');
}

/** The group provd adds to each of its events. */
export function provdGroup(target: HookTarget, command: string): Record<string, unknown> {
  return { matcher: '*', hooks: [{ type: 'command', command, timeout: target.timeout }] };
}

/** Whether `hook` (one entry of a group's `hooks`) runs provd's hook client. */
export function isProvdHook(hook: unknown): boolean {
  if (typeof hook !== 'object' || hook === null || !('command' in hook)) return false;
  const { command } = hook;
  return typeof command === 'string' && basename(firstWord(command)) === clientName;
}

/**
 * The events whose lists change, each with its new list (undefined: the event is left empty and
 * goes): provd's hooks taken out of every event, then `groups` (event -> provd's group) put back.
 * An event that already holds exactly provd's group, and no other provd hook, is left as it is.
 */
export function changedEvents(
  hooks: Record<string, unknown>,
  groups: Readonly<Record<string, Record<string, unknown>>>,
): Map<string, unknown[] | undefined> {
  const changes = new Map<string, unknown[] | undefined>();
  for (const event of new Set([...Object.keys(hooks), ...Object.keys(groups)])) {
    const list = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : undefined;
    const wanted = groups[event];
    if (list === undefined && hooks[event] !== undefined) continue; // not a list: the agent's business
    const others = withoutProvd(list ?? []);
    if (wanted !== undefined) {
      const installed = list !== undefined && provdHooksIn(list) === 1 && hasGroup(list, wanted);
      if (!installed) changes.set(event, [...others, wanted]);
    } else if (list !== undefined && others.length !== list.length) {
      changes.set(event, others.length > 0 ? others : undefined);
    } else if (list !== undefined && !isDeepStrictEqual(others, list)) {
      changes.set(event, others);
    }
  }
  return changes;
}

/** Counts provd's hooks in a `hooks` object. */
export function countProvdHooks(hooks: Record<string, unknown>): number {
  return provdHooksIn(Object.values(hooks).filter(Array.isArray).flat());
}

function provdHooksIn(list: readonly unknown[]): number {
  return list.reduce<number>((count, group) => count + groupHooks(group).filter(isProvdHook).length, 0);
}

/** `list` with provd's hooks taken out of each group, and groups left with no hook dropped. */
function withoutProvd(list: readonly unknown[]): unknown[] {
  return list.flatMap((group) => {
    const hooks = groupHooks(group);
    const kept = hooks.filter((hook) => !isProvdHook(hook));
    if (kept.length === hooks.length) return [group];
    return kept.length === 0 ? [] : [{ ...(group as object), hooks: kept }];
  });
}

/** Whether `list` holds a group that is exactly provd's (its only provd hook counted as one). */
function hasGroup(list: readonly unknown[], wanted: Record<string, unknown>): boolean {
  return list.some((group) => isDeepStrictEqual(group, wanted));
}

function groupHooks(group: unknown): unknown[] {
  if (typeof group !== 'object' || group === null || !('hooks' in group)) return [];
  return Array.isArray(group.hooks) ? group.hooks : [];
}

/** The program a shell command line runs (its first word, quotes taken off). */
function firstWord(command: string): string {
  const text = command.trimStart();
  const quote = text[0];
  if (quote === "'" || quote === '"') {
    const end = text.indexOf(quote, 1);
    return end === -1 ? text.slice(1) : text.slice(1, end);
  }
  return text.split(/\s/, 1)[0] ?? '';
}

/** A word quoted for /bin/sh where it needs it. */
function shellQuote(word: string): string {
  return /^[\w/.,:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
