/**
 * The new text of an agent's hooks file: provd's groups put into (or taken out of) its `hooks`
 * object, event by event, each other byte as it was. A file that is not JSON, or whose top level
 * or `hooks` is not an object, is refused with the line named, and nothing is written.
 */
import {
  blankComments,
  indentOf,
  memberOf,
  objectAt,
  parseJsonText,
  setMember,
  SettingsSyntaxError,
} from './json-text.js';
import { changedEvents, countProvdHooks } from './provd-hook-entries.js';

export interface HooksEdit {
  /** The file's new text; equal to the old when nothing changes. */
  text: string;
  /** The events whose lists changed. */
  events: string[];
  /** provd's hooks in the file before and after. */
  provdBefore: number;
  provdAfter: number;
}

/** Reads `text` (null: no file) as a settings object; the blanked text the offsets refer to. */
export function readSettingsObject(
  text: string | null,
  comments: boolean,
): { value: Record<string, unknown>; blank: string } {
  const blank = comments ? blankComments(text ?? '{}') : (text ?? '{}');
  if (blank.trim() === '') return { value: {}, blank: '{}' };
  const value = parseJsonText(blank);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SettingsSyntaxError('the file is not a JSON object', 1);
  const hooks = (value as Record<string, unknown>)['hooks'];
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) {
    const line = blank.slice(0, blank.indexOf('"hooks"')).split('\n').length;
    throw new SettingsSyntaxError('"hooks" is not an object', line);
  }
  return { value: value as Record<string, unknown>, blank };
}

/** `text` with provd's hooks replaced by `groups` (event -> group; empty to remove them all). */
export function editHooks(
  text: string | null,
  comments: boolean,
  groups: Readonly<Record<string, Record<string, unknown>>>,
): HooksEdit {
  const { value } = readSettingsObject(text, comments);
  const hooks = (value['hooks'] ?? {}) as Record<string, unknown>;
  const changes = changedEvents(hooks, groups);
  const provdBefore = countProvdHooks(hooks);
  const original = text === null || text.trim() === '' ? null : text;
  let edited = original ?? '{}\n';
  const indent = indentOf(edited);
  if (changes.size > 0 && value['hooks'] === undefined) {
    const added = Object.fromEntries([...changes].filter(([, list]) => list !== undefined));
    const blank = comments ? blankComments(edited) : edited;
    edited = setMember(edited, objectAt(blank, blank.indexOf('{')), 'hooks', added, indent, 0);
  } else {
    for (const [event, list] of changes) {
      const blank = comments ? blankComments(edited) : edited;
      const top = objectAt(blank, blank.indexOf('{'));
      const hooksSpan = objectAt(blank, memberOf(top, 'hooks')!.valueStart);
      edited = setMember(edited, hooksSpan, event, list, indent, 1);
    }
    const after = readSettingsObject(edited, comments).value['hooks'] as Record<string, unknown>;
    if (Object.keys(after).length === 0 && Object.keys(hooks).length > 0) {
      // provd's hooks were all the file had: the `hooks` object it added goes too
      const blank = comments ? blankComments(edited) : edited;
      edited = setMember(edited, objectAt(blank, blank.indexOf('{')), 'hooks', undefined, indent, 0);
    }
  }
  const provdAfter = countProvdHooks(
    (readSettingsObject(edited, comments).value['hooks'] ?? {}) as Record<string, unknown>,
  );
  return {
    text: changes.size === 0 ? (text ?? '') : edited,
    events: [...changes.keys()],
    provdBefore,
    provdAfter,
  };
}
