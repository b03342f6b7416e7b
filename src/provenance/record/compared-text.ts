/**
 * The words for what an incomplete record compared, one source for every face that prints it: the
 * CLI's summary line, and the timeline (and so the web view) beside a tool call and its effects.
 */
import type { FileEffectsCompared, NotComparedPart } from './snapshot-coverage.js';

/** `not compared: d00, d05 from "0999" on and 3 more; 12 files compared by size, mtime and inode only`. */
export function comparedText(compared: FileEffectsCompared, shown: number): string {
  const parts = partsText(compared, shown);
  return joined([parts === '' ? '' : `not compared: ${parts}`, unhashedText(compared)]);
}

/**
 * The timeline's words for a tool call whose effects are incomplete: `file effects incomplete:
 * compared only part of cwd, not d00, d01, d02 and 4 more`. A record stored before `compared`
 * existed has only its reason.
 */
export function incompleteCallText(compared: FileEffectsCompared | null, reason: string | null): string {
  if (compared === null) return `file effects incomplete: ${reason ?? 'part of cwd not compared'}`;
  const parts = partsText(compared, 3);
  const words = joined([
    parts === '' ? '' : `compared only part of cwd, not ${parts}`,
    unhashedText(compared),
  ]);
  return `file effects incomplete: ${words}`;
}

/** The timeline's words beside one effect of an incomplete record (null: stored before `compared`). */
export function incompleteEffectText(compared: FileEffectsCompared | null): string {
  if (compared === null) return "incomplete: see its tool call's reason";
  return compared.not_compared.length === 0
    ? 'incomplete: some files compared by size, mtime and inode only'
    : 'incomplete: compared only part of cwd';
}

/** `d00, d05 from "0999" on and 3 more`, or '' when every path was compared. */
function partsText(compared: FileEffectsCompared, shown: number): string {
  const parts = compared.not_compared;
  if (parts.length === 0) return '';
  const named = parts.slice(0, shown);
  const more = parts.length - named.length + compared.not_compared_omitted;
  return named.map(partText).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

function partText(part: NotComparedPart): string {
  const path = part.path === '.' ? 'cwd' : part.path;
  return part.from === null ? path : `${path} from ${JSON.stringify(part.from)} on`;
}

function unhashedText(compared: FileEffectsCompared): string {
  const count = compared.compared_by_metadata;
  return count === 0 ? '' : `${count} file${count === 1 ? '' : 's'} compared by size, mtime and inode only`;
}

function joined(words: string[]): string {
  return words.filter((word) => word !== '').join('; ');
}
