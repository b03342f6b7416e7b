/**
 * What the policy is asked about a tool call, until the gate's own shell-command judging lands
 * (src/security/policy `toolCallSubjects`): a shell command as its execve (the first word, the
 * rest as args) and a `file_open` of each word that names a path; a file tool as a `file_write`
 * (or `file_open` for reads) of its path, resolved against the session's cwd. Words are split on
 * blanks only: quoting is not read, so a quoted path is judged as written.
 */
import { posix } from 'node:path';
import type { PolicySubject } from '../security/policy/policy.js';
import type { HookEvent } from './hook-event.js';

const shellTools = new Set(['Bash', 'exec_command', 'run_shell_command', 'shell', 'local_shell']);
const readTools = new Set(['Read', 'read_file', 'read_many_files', 'NotebookRead']);
const pathFields = ['file_path', 'filePath', 'path', 'notebook_path', 'absolute_path'];

/** The subjects the policy judges for a PreToolUse (none for a tool it cannot read). */
export function toolSubjects(event: HookEvent): PolicySubject[] {
  const input = event.tool_input ?? {};
  const name = event.tool_name ?? '';
  const cwd = event.cwd;
  const at = (path: string): string =>
    cwd !== null && !posix.isAbsolute(path) ? posix.resolve(cwd, path) : path;
  if (shellTools.has(name)) {
    const text = [input['command'], input['cmd']].find((value): value is string => typeof value === 'string');
    const words = (text ?? '').split(/[\s;&|<>()]+/).filter((word) => word !== '');
    if (words.length === 0) return [];
    const paths = words.filter(
      (word) => word.startsWith('/') || word.startsWith('./') || word.startsWith('~/'),
    );
    return [
      { event_type: 'execve', command: words[0]!, args: words.slice(1) },
      ...paths.map((path) => ({ event_type: 'file_open', path: at(path) })),
    ];
  }
  if (name === 'apply_patch') {
    const patch = typeof input['command'] === 'string' ? input['command'] : '';
    const files = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((match) =>
      match[1]!.trim(),
    );
    return files.map((path) => ({ event_type: 'file_write', path: at(path) }));
  }
  const path = pathFields
    .map((field) => input[field])
    .find((value) => typeof value === 'string' && value !== '');
  if (typeof path !== 'string') return [];
  return [{ event_type: readTools.has(name) ? 'file_open' : 'file_write', path: at(path) }];
}
