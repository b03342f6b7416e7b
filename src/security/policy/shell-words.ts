/**
 * A shell command line split as a POSIX shell and bash split it, without running anything: simple
 * commands (their words and redirections) separated by `;` `&&` `||` `|` `&`, newlines, subshells
 * and groups; quotes and escapes removed; here-document bodies kept; `$(...)`, backticks and
 * `<(...)` read as commands of their own. A word the shell would expand at run time (a variable, a
 * glob, a substitution's output) is marked inexact: its value cannot be known before it runs.
 *
 * One pass over the characters, with no regular expression: hostile input costs linear time. The
 * caller bounds the length (`maxShellLength`); nesting deeper than `maxNesting` stops the reading.
 */

/** One word after quote removal; `exact` is false when the shell would expand part of it. */
export interface ShellWord {
  text: string;
  exact: boolean;
  /** Why it is inexact (`$VAR`, a glob, `$(...)`), for the answer. */
  unknown?: string;
  /** Inexact: its text before the first expansion (`/etc/shadow` of `/etc/shadow$(true)`). */
  prefix?: string;
}

export interface ShellRedirect {
  /** The operator without its fd: `>`, `>>`, `<`, `&>`, `>&`, `<>`, `<<<`, ... */
  op: string;
  target: ShellWord;
}

/** One simple command: its words (assignments first, as written) and redirections. */
export interface ShellCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** Bodies of its here-documents (`<<EOF`), which become its standard input. */
  heredocs: string[];
}

export interface ShellReading {
  commands: ShellCommand[];
  /** What the reading could not finish (an unclosed quote, nesting too deep). */
  problems: string[];
}

/** Most characters of a command line read; a longer one is judged on its first 64 KiB and says so. */
export const maxShellLength = 64 * 1024;
/** Most nested substitutions and `sh -c` strings read inside one another. */
export const maxNesting = 8;

/** Redirection operators, longest first. */
const redirectOps = ['<<<', '<<-', '&>>', '<<', '>>', '>|', '>&', '<&', '<>', '&>', '<', '>'];
const blank = new Set([' ', '\t', '\r']);
/** Characters that end a word outside quotes. */
const metacharacters = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>']);

class NestingTooDeep extends Error {}

/** Splits `source` into its simple commands; `depth` counts the readings this one sits inside. */
export function readShell(source: string, depth = 0): ShellReading {
  const problems: string[] = [];
  let text = source;
  if (text.length > maxShellLength) {
    text = text.slice(0, maxShellLength);
    problems.push(`command longer than ${maxShellLength} characters: read its first ${maxShellLength}`);
  }
  const lexer = new ShellLexer(text, depth, problems);
  try {
    lexer.readList(false);
  } catch (error) {
    if (!(error instanceof NestingTooDeep)) throw error;
    problems.push(`substitutions nested deeper than ${maxNesting}: not read past there`);
  }
  return { commands: lexer.commands, problems };
}

class ShellLexer {
  readonly commands: ShellCommand[] = [];
  private pos = 0;
  /** Here-documents whose bodies start after the current line, with the command they feed. */
  private pendingHeredocs: Array<{ delimiter: string; stripTabs: boolean; command: ShellCommand }> = [];

  constructor(
    private readonly text: string,
    private readonly depth: number,
    private readonly problems: string[],
  ) {}

  /** Reads commands until the end, or (inside `$(`) until the `)` that closes it, consumed. */
  readList(closeOnParen: boolean): void {
    let command = newCommand();
    let parens = 0;
    const finish = (): void => {
      if (command.words.length > 0 || command.redirects.length > 0) this.commands.push(command);
      command = newCommand();
    };
    while (this.pos < this.text.length) {
      const char = this.text[this.pos]!;
      if (blank.has(char)) {
        this.pos++;
      } else if (char === '\\' && this.text[this.pos + 1] === '\n') {
        this.pos += 2; // a line continuation
      } else if (char === '#') {
        this.skipComment(); // a # that starts a word starts a comment
      } else if (char === '&' && this.text[this.pos + 1] === '>') {
        this.readRedirect(command);
      } else if (char === '\n') {
        this.pos++;
        finish();
        this.readHeredocBodies();
      } else if (char === ';' || char === '&' || char === '|') {
        this.pos++;
        finish();
      } else if (char === '(') {
        this.pos++;
        parens++;
        finish();
      } else if (char === ')') {
        this.pos++;
        finish();
        if (parens > 0) parens--;
        else if (closeOnParen) return;
      } else if (char === '<' || char === '>') {
        this.readRedirect(command);
      } else {
        const start = this.pos;
        const word = this.readWord();
        // an all-digit word right before < or > is the fd of a redirection (2>err.log)
        if (
          /^\d+$/.test(word.text) &&
          word.exact &&
          this.pos - start === word.text.length &&
          this.atRedirect()
        )
          this.readRedirect(command);
        else if (word.text !== '' || !word.exact || this.pos > start) command.words.push(word);
      }
    }
    finish();
    if (closeOnParen) this.problems.push('a $( without its closing )');
  }

  private atRedirect(): boolean {
    const char = this.text[this.pos];
    return char === '<' || char === '>';
  }

  private skipComment(): void {
    while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
  }

  /** A redirection at `pos` (after its fd, if any): its operator and target word. */
  private readRedirect(command: ShellCommand): void {
    let op = '';
    for (const candidate of redirectOps) {
      if (this.text.startsWith(candidate, this.pos)) {
        op = candidate;
        break;
      }
    }
    this.pos += op.length;
    if (op === '<' || op === '>') {
      const next = this.text[this.pos];
      if (next === '(') {
        // process substitution: its commands run; the word it becomes is a pipe
        this.pos++;
        this.readNested();
        return;
      }
    }
    while (this.pos < this.text.length && blank.has(this.text[this.pos]!)) this.pos++;
    const target = this.readWord();
    if (op === '<<' || op === '<<-') {
      this.pendingHeredocs.push({ delimiter: target.text, stripTabs: op === '<<-', command });
      return;
    }
    command.redirects.push({ op, target });
  }

  /** After a newline: the bodies of the here-documents its line opened, in order. */
  private readHeredocBodies(): void {
    for (const { delimiter, stripTabs, command } of this.pendingHeredocs) {
      const lines: string[] = [];
      while (this.pos < this.text.length) {
        let end = this.text.indexOf('\n', this.pos);
        if (end < 0) end = this.text.length;
        let line = this.text.slice(this.pos, end);
        this.pos = Math.min(end + 1, this.text.length);
        if (stripTabs) line = line.replace(/^\t+/, '');
        if (line === delimiter) break;
        lines.push(line);
      }
      command.heredocs.push(lines.join('\n'));
    }
    this.pendingHeredocs = [];
  }

  /** Reads commands inside `$(`, `<(` or a backtick string, one nesting level deeper. */
  private readNested(): void {
    if (this.depth + 1 > maxNesting) throw new NestingTooDeep();
    const inner = new ShellLexer(this.text, this.depth + 1, this.problems);
    inner.pos = this.pos;
    inner.readList(true);
    this.pos = inner.pos;
    this.commands.push(...inner.commands);
  }

  /** One word: up to a blank or a metacharacter outside quotes. */
  private readWord(): ShellWord {
    let text = '';
    let unknown: string | undefined;
    let prefix = '';
    let isUrl = false; // kept as a flag: a search of the growing text would cost its length per glob character
    const mark = (why: string): void => {
      if (unknown === undefined) prefix = text;
      unknown ??= why;
    };
    const start = this.pos;
    while (this.pos < this.text.length) {
      const char = this.text[this.pos]!;
      if (metacharacters.has(char)) break;
      if (char === '\\') {
        const next = this.text[this.pos + 1];
        this.pos += 2;
        if (next !== undefined && next !== '\n') text += next;
      } else if (char === "'") {
        const end = this.text.indexOf("'", this.pos + 1);
        if (end < 0) {
          this.problems.push("a ' without its closing '");
          text += this.text.slice(this.pos + 1);
          this.pos = this.text.length;
        } else {
          text += this.text.slice(this.pos + 1, end);
          this.pos = end + 1;
        }
      } else if (char === '"') {
        this.pos++;
        text += this.readDoubleQuoted(mark);
      } else if (char === '$') {
        text += this.readDollar(mark);
      } else if (char === '`') {
        this.readBackticks();
        mark('`...`');
      } else {
        // a URL's ? is a glob to the shell too, but no file name holds its ://: the URL stays as written
        if (char === ':' && this.text.startsWith('//', this.pos + 1)) isUrl = true;
        const isGlob = char === '*' || char === '?' || char === '[';
        if (isGlob && !isUrl) mark(`a glob (${char})`);
        if (char === '~' && this.pos === start) text += '~';
        else text += char;
        this.pos++;
      }
    }
    return unknown === undefined ? { text, exact: true } : { text, exact: false, unknown, prefix };
  }

  /** The inside of "...": `\` escapes only $ ` " \ and newline; `$` and backticks expand. */
  private readDoubleQuoted(mark: (why: string) => void): string {
    let text = '';
    while (this.pos < this.text.length) {
      const char = this.text[this.pos]!;
      if (char === '"') {
        this.pos++;
        return text;
      }
      if (char === '\\') {
        const next = this.text[this.pos + 1];
        if (next === '$' || next === '`' || next === '"' || next === '\\') text += next;
        else if (next !== '\n') text += '\\' + (next ?? '');
        this.pos += 2;
      } else if (char === '$') {
        text += this.readDollar(mark);
      } else if (char === '`') {
        this.readBackticks();
        mark('`...`');
      } else {
        text += char;
        this.pos++;
      }
    }
    this.problems.push('a " without its closing "');
    return text;
  }

  /**
   * `$` and what follows: `$'...'` decoded; `$HOME` and `${HOME}` kept as `~` (the user's home, as
   * the caller resolves it); every other expansion unknown, its commands read.
   */
  private readDollar(mark: (why: string) => void): string {
    const next = this.text[this.pos + 1];
    if (next === "'") {
      this.pos += 2;
      return this.readAnsiC();
    }
    if (next === '(') {
      // `$((...))` too: arithmetic may hold a `$(...)` that runs, and bash reads `$(( cmd ) )` as
      // a command in a subshell; arithmetic read as commands names only programs no rule knows
      this.pos += 2;
      this.readNested();
      mark('$(...)');
      return '';
    }
    if (next === '{') {
      this.pos += 2;
      const nameStart = this.pos;
      this.skipBalanced('{', '}', 1);
      const inside = this.text.slice(nameStart, this.pos - 1);
      if (inside === 'HOME') return '~';
      // `${x:-$(cmd)}`: a default's substitution runs
      if (inside.includes('$(') || inside.includes('`')) this.readText(inside);
      mark(`\${${inside.slice(0, 40)}}`);
      return '';
    }
    let end = this.pos + 1;
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      while (end < this.text.length && /\w/.test(this.text[end]!)) end++;
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      end++;
    } else {
      this.pos++;
      return '$'; // a lone $ is itself
    }
    const name = this.text.slice(this.pos + 1, end);
    this.pos = end;
    if (name === 'HOME') return '~';
    mark(`$${name}`);
    return '';
  }

  /** The inside of `$'...'`, its common escapes decoded (others kept as written). */
  private readAnsiC(): string {
    const escapes: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      '\\': '\\',
      "'": "'",
      '"': '"',
      e: '\x1b',
      a: '\x07',
    };
    let text = '';
    while (this.pos < this.text.length) {
      const char = this.text[this.pos]!;
      if (char === "'") {
        this.pos++;
        return text;
      }
      if (char === '\\') {
        const next = this.text[this.pos + 1] ?? '';
        if (next === 'x') {
          const hex = /^[0-9a-fA-F]{1,2}/.exec(this.text.slice(this.pos + 2, this.pos + 4))?.[0] ?? '';
          text += hex === '' ? '\\x' : String.fromCharCode(parseInt(hex, 16));
          this.pos += 2 + hex.length;
          continue;
        }
        text += escapes[next] ?? '\\' + next;
        this.pos += 2;
      } else {
        text += char;
        this.pos++;
      }
    }
    this.problems.push("a $' without its closing '");
    return text;
  }

  /** Reads `text` as a command line one nesting level deeper, its commands added to these. */
  private readText(text: string): void {
    if (this.depth + 1 > maxNesting) throw new NestingTooDeep();
    const reading = new ShellLexer(text, this.depth + 1, this.problems);
    reading.readList(false);
    this.commands.push(...reading.commands);
  }

  /** A backtick string: its `\`` and `\\` unescaped, then read as commands. */
  private readBackticks(): void {
    let inner = '';
    let pos = this.pos + 1;
    while (pos < this.text.length && this.text[pos] !== '`') {
      if (this.text[pos] === '\\' && pos + 1 < this.text.length) {
        const next = this.text[pos + 1]!;
        inner += next === '`' || next === '\\' || next === '$' ? next : '\\' + next;
        pos += 2;
      } else {
        inner += this.text[pos];
        pos++;
      }
    }
    if (pos >= this.text.length) this.problems.push('a ` without its closing `');
    this.pos = pos + 1;
    this.readText(inner);
  }

  /** Skips to the `close` that balances `open`s, `count` of them already open; quotes skipped whole. */
  private skipBalanced(open: string, close: string, count: number): void {
    let depth = count;
    while (this.pos < this.text.length && depth > 0) {
      const char = this.text[this.pos]!;
      if (char === "'" || char === '"') {
        const end = this.text.indexOf(char, this.pos + 1);
        this.pos = end < 0 ? this.text.length : end + 1;
        continue;
      }
      if (char === open) depth++;
      else if (char === close) depth--;
      this.pos++;
    }
  }
}

function newCommand(): ShellCommand {
  return { words: [], redirects: [], heredocs: [] };
}
