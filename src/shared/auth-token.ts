/**
 * The bearer token, from a value or from a file. A token on the command line is readable by every
 * local user in /proc/PID/cmdline; a file of mode 0600 is not, so the daemon (--auth-token-file) and
 * the CLI ($PROVD_AUTH_TOKEN_FILE) both read one. A file others may read is refused, as OpenSSH
 * refuses such a key.
 */
import { readFileSync, statSync } from 'node:fs';
import { ProvdError } from './errors.js';

/** Checks a token as RFC 6750 allows it (b64token-like: printable ASCII, no spaces); `name` names its source. */
export function checkedToken(token: string, name: string): string {
  if (token.trim() === '') throw invalid(`${name} must not be empty; unset it to run without auth`);
  if (!/^[\x21-\x7e]+$/.test(token))
    throw invalid(`${name} must be printable ASCII without spaces (RFC 6750 token)`);
  return token;
}

/** The token held by `file` (one line; a final newline is not part of it), checked. */
export function readTokenFile(file: string, name: string): string {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw invalid(`${name} ${file} cannot be read (${why})`);
  }
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw invalid(`${name} ${file} may be read by other users (mode ${octal}): chmod 600 it`);
  }
  return checkedToken(text.replace(/\r?\n$/, ''), `the token in ${name} ${file}`);
}

function invalid(message: string): ProvdError {
  return new ProvdError('PROVD_ERR_CONFIG_INVALID', message);
}
