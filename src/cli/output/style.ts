/**
 * How human output looks on the stream it goes to: colours only on a terminal without NO_COLOR
 * (provd-cli.ts: usesColors), and long values cut to the terminal's width only on a terminal, so
 * a pipe or a file always gets every character.
 */
import { usesColors } from '../provd-cli.js';

/** The SGR codes the CLI uses; nothing else is ever written. */
const codes = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;

/** A colour (or weight) name. */
export type Paint = keyof typeof codes;

/** What a command may do to its human output on one stream. */
export interface Style {
  /** `text` in `paint` on a colour terminal, else `text` unchanged. */
  paint(text: string, paint: Paint | undefined): string;
  /** The terminal's width in columns; undefined when the stream is not a terminal (never cut). */
  readonly width: number | undefined;
}

/** The style of `stream` (a command's stdout) under `env`. */
export function styleOf(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv = process.env,
): Style {
  const colors = usesColors(stream, env);
  const width = stream.isTTY === true && (stream.columns ?? 0) > 0 ? stream.columns : undefined;
  return {
    paint: (text, paint) =>
      colors && paint !== undefined && text !== '' ? `\x1b[${codes[paint]}m${text}\x1b[0m` : text,
    width,
  };
}

/** `text` cut to `max` characters with an ellipsis as the last; unchanged when it fits. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return max <= 1 ? '…'.slice(0, max) : text.slice(0, max - 1) + '…';
}

// C0 and C1 controls (ESC, CR, BEL, ...) and the bidi overrides and isolates of "Trojan Source"
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unsafe = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character and bidi override shown as an escape (`\x1b`, `\u202e`).
 * Evidence is written by whoever ran on the host: an argv or path holding ESC sequences would
 * otherwise drive the reader's terminal (clear it, rewrite lines, set its title), and a newline
 * would forge a row. Every value a view prints from the daemon passes through here.
 */
export function visible(text: string): string {
  return text.replace(unsafe, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
