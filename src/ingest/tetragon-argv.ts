/**
 * Tetragon's `process.arguments` back into an argument list. Tetragon joins argv[1..] with single
 * spaces and wraps an argument that holds a space in double quotes, without escaping anything
 * (pkg/process/args.go, ArgsDecoder); a quoted argument is always preceded by a space, even the first.
 * The inverse is exact except where an argument itself starts with `"` and holds `" `: the original
 * string is kept beside the list for that reason.
 */

/** Splits Tetragon's joined arguments; an empty string is no arguments. */
export function splitTetragonArguments(text: string): string[] {
  const args: string[] = [];
  if (text === '') return args;
  // a first argument with a space comes out as ` "a b"`: the separator is there before it too
  let at = text.startsWith(' "') ? 1 : 0;
  for (;;) {
    let end = quotedEnd(text, at);
    if (end !== -1) {
      args.push(text.slice(at + 1, end - 1));
    } else {
      end = text.indexOf(' ', at);
      if (end === -1) end = text.length;
      args.push(text.slice(at, end));
    }
    if (end >= text.length) return args;
    at = end + 1; // the one space between arguments
  }
}

/**
 * The end (after the closing quote) of a quoted argument starting at `at`, or -1 when there is none
 * there. Tetragon quotes only arguments holding a space, and closes them before a space or the end.
 */
function quotedEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 34 /* " */) return -1;
  for (let close = text.indexOf('"', at + 1); close !== -1; close = text.indexOf('"', close + 1)) {
    if (close + 1 !== text.length && text.charCodeAt(close + 1) !== 32) continue;
    return text.lastIndexOf(' ', close) > at ? close + 1 : -1;
  }
  return -1;
}
