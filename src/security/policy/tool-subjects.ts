/**
 * The subjects of an agent's tool call, read from its input as the agent's PreToolUse hook gives it
 * (`tool_name`, `tool_input`; ../shared/data/agents/hook-payloads.jsonl): a shell tool by the
 * command line it runs, a file tool by its path, Codex's `apply_patch` by every path its patch
 * touches, a fetch or search tool by the hosts of its URLs, and any other tool (an MCP server's) by
 * the paths and URLs among its input's string values.
 */
import { addArgv, addCommandLine } from './command-subjects.js';
import { hostOf, looksLikePath, resolvePath, SubjectList, type SubjectReading } from './named-subject.js';

/** Shell tools: Claude's and Codex's hook `Bash`, Codex's `exec_command`/`shell`, Gemini's `run_shell_command`. */
const shellTools = new Set([
  'bash',
  'exec_command',
  'shell',
  'local_shell',
  'run_shell_command',
  'container.exec',
]);
/** File tools that write (Claude Write/Edit/MultiEdit/NotebookEdit, Gemini write_file/replace). */
const writeTools = new Set([
  'write',
  'edit',
  'multiedit',
  'notebookedit',
  'write_file',
  'replace',
  'edit_file',
]);
/** File tools that read or list (Claude Read/Glob/Grep/LS, Gemini read_file/read_many_files/glob/...). */
const readTools = new Set([
  'read',
  'glob',
  'grep',
  'ls',
  'read_file',
  'read_many_files',
  'list_directory',
  'search_file_content',
  'view',
]);
const patchTools = new Set(['apply_patch']);

/** Input keys that hold a file tool's path, and a shell tool's working directory. */
const pathKeys = ['file_path', 'path', 'notebook_path', 'absolute_path', 'dir_path', 'directory'];
const workdirKeys = ['workdir', 'cwd', 'dir_path', 'directory'];
/** Most characters of string values read from one tool input. */
const maxInputChars = 256 * 1024;
const maxInputDepth = 16;

/**
 * The subjects of the tool call `tool` with input `input`, relative paths resolved against `cwd`
 * (the hook payload's) and `~` against `home`. Never throws: an input of the wrong shape is read
 * for what it holds.
 */
export function toolCallSubjects(
  tool: string,
  input: unknown,
  cwd?: string | null,
  home?: string | null,
): SubjectReading {
  const name = tool.toLowerCase();
  const fields = isRecord(input) ? input : {};
  const workdir = firstString(fields, workdirKeys);
  const base = cwd ?? null;
  const place = {
    cwd: workdir === null ? base : (resolvePath(workdir, { cwd: base, home }) ?? base),
    home: home ?? null,
  };
  const list = new SubjectList(shellTools.has(name) ? place : { cwd: base, home: home ?? null });
  if (shellTools.has(name)) {
    const command = fields['command'] ?? fields['cmd'];
    if (typeof command === 'string') addCommandLine(list, command);
    else if (Array.isArray(command) && command.every((word) => typeof word === 'string'))
      addArgv(list, command);
    else list.note(`${tool} has no command to read`);
  } else if (writeTools.has(name) || readTools.has(name)) {
    const type = writeTools.has(name) ? 'file_write' : 'file_open';
    for (const key of pathKeys) {
      const value = fields[key];
      if (typeof value === 'string' && value !== '') list.addPath(type, value);
    }
    const paths = fields['paths'];
    if (Array.isArray(paths))
      for (const path of paths) if (typeof path === 'string') list.addPath(type, path);
    if (list.subjects.length === 0) addStrings(list, input);
  } else if (patchTools.has(name)) {
    const patch = fields['command'] ?? fields['input'] ?? fields['patch'];
    if (typeof patch === 'string') addPatch(list, patch);
    else addStrings(list, input);
  } else {
    addStrings(list, input); // fetch and search tools (their url), MCP tools, tools unknown to provd
  }
  return list.reading();
}

/** Codex's patch format: `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`. */
const patchHeaders: ReadonlyArray<[string, string]> = [
  ['*** Add File: ', 'file_write'],
  ['*** Update File: ', 'file_write'],
  ['*** Delete File: ', 'file_unlink'],
  ['*** Move to: ', 'file_rename'],
];

function addPatch(list: SubjectList, patch: string): void {
  for (const line of patch.slice(0, maxInputChars).split('\n')) {
    for (const [header, type] of patchHeaders)
      if (line.startsWith(header)) list.addPath(type, line.slice(header.length).trim());
  }
}

/**
 * Every path or URL among the string values of `input`: a value that is one word naming a host or
 * looking like an absolute, home or relative path; URLs inside longer text (a fetch prompt) too.
 */
function addStrings(list: SubjectList, input: unknown): void {
  let budget = maxInputChars;
  const visit = (value: unknown, depth: number): void => {
    if (budget <= 0 || depth > maxInputDepth) return;
    if (typeof value === 'string') {
      const text = value.slice(0, budget);
      budget -= text.length;
      for (const word of text.split(/[\s"'<>()]+/)) {
        if (word === '') continue;
        const host = hostOf(word);
        if (host !== null) list.addHost(host);
        else if (
          word === value &&
          looksLikePath(word) &&
          (word.includes('/') || word.startsWith('.') || word.startsWith('~'))
        )
          list.addPath('file_open', word);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (isRecord(value)) {
      for (const item of Object.values(value)) visit(item, depth + 1);
    }
  };
  visit(input, 0);
  if (budget <= 0)
    list.note(`input longer than ${maxInputChars} characters: read its first ${maxInputChars}`);
}

function firstString(fields: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
