/**
 * A connect whose producer gave no destination (a Tetragon `tcp_connect` kprobe whose policy captured
 * no `sock` argument, a Falco connect alert that prints no `fd.rip`, `fd.sip` or `fd.name`) is still
 * a connect, and it says so: `attrs.no_destination` names what the producer left out, so the event
 * never reads as a connect to nowhere. Producer health counts every connect stored without a
 * destination, per source (`connect_no_destination`, normalize.ts), those of native lines too,
 * whose attrs are kept exactly as sent.
 */

/** The attrs key that says what a connect's producer left out. */
export const noDestinationKey = 'no_destination';

/** Whether a connect's attrs name where it went: an address or a host name. */
export function hasDestination(attrs: Record<string, unknown>): boolean {
  return attrs.dst_ip !== undefined || attrs.dst_host !== undefined;
}

/**
 * Marks the attrs of a connect that holds no destination with what the producer left out (`missing`);
 * a socket the producer sent but provd could not read already says so in `unreadable`.
 */
export function markNoDestination(attrs: Record<string, unknown>, missing: string): void {
  if (!hasDestination(attrs) && attrs.unreadable === undefined) {
    attrs[noDestinationKey] = `the producer sent no destination: ${missing}`;
  }
}
