/** Text from a file or a user, made safe to print to a terminal. */

// C0, DEL, C1 and the Unicode line separators: matching control characters is the point here
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Text from the file with control characters escaped: a hostile file must not drive the terminal. */
export function printable(text: string, keep = ''): string {
  return text.replace(controlCharacters, (char) =>
    keep.includes(char) ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
