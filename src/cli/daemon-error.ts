/** The `code: message` of a daemon's error answer (`provenance.error/v1`), as the CLI prints it. */

/** `code: message` of a provenance.error/v1 body, or undefined when the body is something else. */
export function daemonErrorOf(body: unknown): string | undefined {
  const { code, message } =
    (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error ?? {};
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return `${code}: ${message}`;
}
