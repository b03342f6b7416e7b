/**
 * The subjects a shell command names: each program it runs (with its arguments), each path (an
 * argument that looks like one, a redirection's target) and each host (a URL's, `user@host`,
 * `host:port`, an address). Wrappers (`sudo`, `env`, `timeout`, `xargs`, ...) are looked through to
 * the program they run, and `sh -c '...'`, `eval` and a shell fed a here-document are read as the
 * command lines they are, `maxNesting` deep. What only running it would tell is noted, not guessed.
 */
import { posix } from 'node:path';
import { looksLikePath, hostOf, type SubjectList } from './named-subject.js';
import { maxNesting, readShell, type ShellCommand, type ShellWord } from './shell-words.js';

/** Adds the subjects of the command line `line` to `list`. */
export function addCommandLine(list: SubjectList, line: string, depth = 0): void {
  if (depth > maxNesting) {
    list.note(`command lines nested deeper than ${maxNesting}: not read past there`);
    return;
  }
  const reading = readShell(line, depth);
  for (const problem of reading.problems) list.note(problem);
  for (const command of reading.commands) addShellCommand(list, command, depth);
}

/** Adds a program run with exactly these words (`argv`, argv[0] first), as an exec names it. */
export function addArgv(list: SubjectList, argv: readonly string[], depth = 0): void {
  addProgram(
    list,
    argv.map((text) => ({ text, exact: true })),
    [],
    depth,
  );
}

/** Words that open or close a compound command: not programs. */
const keywords = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  '!',
  '{',
  '}',
  'time',
  'esac',
  'in',
]);

function addShellCommand(list: SubjectList, command: ShellCommand, depth: number): void {
  addWords(list, command, depth);
  for (const { op, target } of command.redirects) addRedirect(list, op, target);
}

function addWords(list: SubjectList, command: ShellCommand, depth: number): void {
  const words = command.words;
  let first = 0;
  // keywords, then assignments (`VAR=x cmd`): their values may name paths too
  while (first < words.length) {
    const word = words[first]!;
    if (word.exact && keywords.has(word.text)) first++;
    else if (isAssignment(word.text)) {
      addArgument(list, word.text.slice(word.text.indexOf('=') + 1), word);
      first++;
    } else break;
  }
  const head = words[first];
  if (head === undefined) return;
  if (
    head.exact &&
    (head.text === 'for' || head.text === 'select' || head.text === 'case' || head.text === 'function')
  ) {
    // `for f in LIST`: the list's words may name paths; the rest is no program
    for (const word of words.slice(first + 2)) addArgument(list, word.text, word);
    return;
  }
  addProgram(list, words.slice(first), command.heredocs, depth);
}

function addRedirect(list: SubjectList, op: string, target: ShellWord): void {
  if (op === '<<<') return; // a here-string is text, not a file
  if ((op === '>&' || op === '<&') && (/^\d+-?$/.test(target.text) || target.text === '-')) return; // 2>&1
  if (!target.exact) {
    list.note(
      `redirects ${op} to ${target.unknown ?? 'an expansion'}: its target is known only when it runs`,
    );
    if (!isJudgedAsWritten(target)) return;
  }
  list.addPath(op === '<' ? 'file_open' : 'file_write', target.text);
}

/** A word that is an argument: a host it names, else a path it looks like. */
function addArgument(list: SubjectList, text: string, word: ShellWord): void {
  if (!word.exact) {
    list.note(`an argument is ${word.unknown ?? 'an expansion'}: known only when it runs`);
    if (!isJudgedAsWritten(word)) return;
  }
  const host = hostOf(text);
  if (host !== null) list.addHost(host);
  else if (looksLikePath(text)) list.addPath('file_open', text);
}

function addProgram(list: SubjectList, words: ShellWord[], heredocs: string[], depth: number): void {
  const [program, ...args] = words;
  if (program === undefined) return;
  if (program.exact) {
    list.add(
      { event_type: 'execve', command: program.text, args: args.map((arg) => arg.text) },
      `runs ${program.text.slice(0, 200)}`,
    );
    if (program.text.includes('/')) list.addPath('file_open', program.text);
  } else {
    list.note(`runs a program named by ${program.unknown ?? 'an expansion'}: known only when it runs`);
  }
  for (const arg of args) {
    // `--file=/etc/shadow`: the value after = is the argument
    const equals = arg.text.startsWith('-') ? arg.text.indexOf('=') : -1;
    if (arg.text.startsWith('-') && equals < 0) continue;
    addArgument(list, equals < 0 ? arg.text : arg.text.slice(equals + 1), arg);
  }
  if (!program.exact) return;
  const name = posix.basename(program.text);
  const wrapper = wrappers[name];
  if (wrapper !== undefined) {
    addWrapped(list, name, wrapper, args, heredocs, depth);
    return;
  }
  if (shells.has(name)) addShell(list, args, heredocs, depth);
  else if (name === 'eval') addCommandLine(list, args.map((arg) => arg.text).join(' '), depth + 1);
  else if (name === 'su') addOptionString(list, args, ['-c', '--command'], depth);
}

/** A wrapper's options that take a value, and how many operands come before the program it runs. */
interface Wrapper {
  valued: readonly string[];
  operands?: number;
  /** An option whose value is itself a command line (`env -S`). */
  line?: readonly string[];
  /** Its program gets more arguments than the command line shows (`xargs`). */
  addsArguments?: boolean;
}

const wrappers: Record<string, Wrapper> = {
  sudo: { valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group'] },
  doas: { valued: ['-u', '-C'] },
  env: { valued: ['-u', '--unset', '-C', '--chdir'], line: ['-S', '--split-string'] },
  exec: { valued: ['-a'] },
  nohup: { valued: [] },
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '-n', '-p', '--class', '--classdata'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  time: { valued: ['-f', '-o', '--format', '--output'] },
  command: { valued: [] },
  builtin: { valued: [] },
  setsid: { valued: [] },
  chroot: { valued: ['--userspec', '--groups'], operands: 1 },
  flock: {
    valued: ['-w', '-E', '--timeout', '--conflict-exit-code'],
    operands: 1,
    line: ['-c', '--command'],
  },
  xargs: {
    valued: [
      '-a',
      '-d',
      '-E',
      '-e',
      '-I',
      '-i',
      '-L',
      '-l',
      '-n',
      '-P',
      '-s',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
    ],
    addsArguments: true,
  },
  strace: { valued: ['-o', '-e', '-p', '-s', '-u', '-E'] },
  ltrace: { valued: ['-o', '-e', '-p', '-s', '-u'] },
  busybox: { valued: [] },
  unbuffer: { valued: [] },
  torsocks: { valued: [] },
  proxychains: { valued: ['-f'] },
  proxychains4: { valued: ['-f'] },
  watch: { valued: ['-n', '-d', '--interval'], line: [] },
};

/** The program a wrapper runs: after its options, `--`, assignments (env) and operands. */
function addWrapped(
  list: SubjectList,
  name: string,
  wrapper: Wrapper,
  args: ShellWord[],
  heredocs: string[],
  depth: number,
): void {
  let at = 0;
  let operands = wrapper.operands ?? 0;
  while (at < args.length) {
    const text = args[at]!.text;
    if (text === '--') {
      at++;
      break;
    }
    if (wrapper.line?.includes(text) === true && at + 1 < args.length) {
      addCommandLine(list, args[at + 1]!.text, depth + 1);
      return;
    }
    if (text.startsWith('-') && text.length > 1) {
      if (name === 'command' && (text === '-v' || text === '-V')) return; // only looks the name up
      at += wrapper.valued.includes(text) ? 2 : 1;
    } else if (name === 'env' && isAssignment(text)) {
      at++;
    } else if (operands > 0) {
      operands--;
      at++;
    } else break;
  }
  const rest = args.slice(at);
  if (rest.length === 0) return;
  if (wrapper.addsArguments === true)
    list.note(`${name} adds arguments read from its input: known only when it runs`);
  // watch runs its words as one command line through sh -c
  if (name === 'watch') addCommandLine(list, rest.map((word) => word.text).join(' '), depth + 1);
  else addProgram(list, rest, heredocs, depth);
}

const shells = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'rbash']);

/** A shell: `-c STRING` read as a command line; with no script, its here-documents are. */
function addShell(list: SubjectList, args: ShellWord[], heredocs: string[], depth: number): void {
  let readsString = false;
  for (let at = 0; at < args.length; at++) {
    const word = args[at]!;
    const text = word.text;
    if (text === '--' || text === '-') continue;
    if (
      text === '-o' ||
      text === '+o' ||
      text === '-O' ||
      text === '+O' ||
      text === '--rcfile' ||
      text === '--init-file'
    ) {
      at++;
      continue;
    }
    if ((text.startsWith('-') || text.startsWith('+')) && text.length > 1) {
      if (!text.startsWith('--') && text.slice(1).includes('c')) readsString = true;
      continue;
    }
    if (readsString) {
      if (word.exact) addCommandLine(list, text, depth + 1);
      else list.note(`a shell runs ${word.unknown ?? 'an expansion'}: known only when it runs`);
    }
    return; // a script file: already judged as a path
  }
  for (const body of heredocs) addCommandLine(list, body, depth + 1);
}

/** `su -c STRING`: the string read as a command line. */
function addOptionString(list: SubjectList, args: ShellWord[], options: string[], depth: number): void {
  const at = args.findIndex((word) => options.includes(word.text));
  const line = at < 0 ? undefined : args[at + 1];
  if (line !== undefined) addCommandLine(list, line.text, depth + 1);
}

/**
 * An inexact word that starts as written (`/etc/shadow$(true)`, `~/.ssh/id_*`) is judged too, as
 * written with its expansions empty: an empty substitution must not hide the path before it. One
 * that starts with an expansion (`$DIR/.env`) is not: where it points is unknown.
 */
function isJudgedAsWritten(word: ShellWord): boolean {
  return word.prefix !== undefined && word.prefix !== '';
}

function isAssignment(text: string): boolean {
  const equals = text.indexOf('=');
  return equals > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text.slice(0, equals));
}
