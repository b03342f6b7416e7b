/** The `code: message` of a daemon's error answer (`provenance.error/v1`), as the CLI prints it. */

/**
 * `code: message` of a provenance.error/v1 body, or undefined when the body is something else. A
 * refused token (`unauthorized`) also says how the CLI sends one.
 */
export function daemonErrorOf(body: unknown): string | undefined {
  const { code, message } =
    (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error ?? {};
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return `${code}: ${message}${code === 'unauthorized' ? tokenHint() : ''}`;
}

/** What to do about a refused token: the CLI sends $PROVD_AUTH_TOKEN (else the file's). */
export function tokenHint(env: NodeJS.ProcessEnv = process.env): string {
  const set = Boolean(env['PROVD_AUTH_TOKEN'] || env['PROVD_AUTH_TOKEN_FILE']);
  return set
    ? " (the token in PROVD_AUTH_TOKEN or PROVD_AUTH_TOKEN_FILE is not the daemon's --auth-token)"
    : " (set PROVD_AUTH_TOKEN, or PROVD_AUTH_TOKEN_FILE, to the daemon's --auth-token)";
}
