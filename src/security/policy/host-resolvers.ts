/**
 * The host's own DNS resolvers: the `nameserver` lines of /etc/resolv.conf and, where
 * systemd-resolved runs, of /run/systemd/resolve/resolv.conf (its upstreams: /etc/resolv.conf then
 * names only its stub, 127.0.0.53). The policy's `host_resolvers` condition reads them, so DNS to
 * them is not judged a connection into private space. Read once, when the daemon starts.
 */
import { parseIpv4, parseIpv6 } from '../../telemetry/ip-address.js';
import { readPolicyBytes } from './policy-file-read.js';

/** Where resolvers are configured, in the order read: a file that does not exist is skipped. */
export const defaultResolvConfFiles = ['/etc/resolv.conf', '/run/systemd/resolve/resolv.conf'];

/** A resolv.conf is a few lines; past this it is read no further. */
const maxFileBytes = 64 * 1024;

/** The resolvers the daemon judges DNS traffic against, and where it read them. */
export interface HostResolvers {
  /** Each address once, in the order the files give them (an IPv6 zone, `%eth0`, left out). */
  addresses: string[];
  /** The files read. */
  paths: string[];
  /** Files that could not be read, with why (a default file that does not exist is not one). */
  unread: { path: string; error: string }[];
}

/**
 * Reads the resolvers of `files`; one that cannot be read is reported in `unread`, except a missing
 * one when `skipMissing` (the defaults: a host without systemd-resolved has no second file).
 */
export async function readHostResolvers(
  files: readonly string[],
  skipMissing: boolean,
): Promise<HostResolvers> {
  const found: HostResolvers = { addresses: [], paths: [], unread: [] };
  for (const path of files) {
    let text: string;
    try {
      const { bytes } = await readPolicyBytes(path, maxFileBytes, (message) => {
        throw new Error(message);
      });
      text = bytes.subarray(0, maxFileBytes).toString('utf8');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!skipMissing || !message.includes('ENOENT')) found.unread.push({ path, error: message });
      continue;
    }
    found.paths.push(path);
    for (const address of nameservers(text))
      if (!found.addresses.includes(address)) found.addresses.push(address);
  }
  return found;
}

/** The addresses of a resolv.conf's `nameserver` lines (resolv.conf(5)); other lines are not read. */
export function nameservers(text: string): string[] {
  const addresses: string[] = [];
  for (const line of text.split('\n')) {
    const words = line
      .replace(/[#;].*/, '')
      .trim()
      .split(/\s+/);
    if (words[0] !== 'nameserver' || words[1] === undefined) continue;
    const address = words[1].replace(/%.*/, ''); // fe80::1%eth0: the zone names an interface
    if (parseIpv4(address) >= 0 || (address.includes(':') && parseIpv6(address) !== undefined))
      addresses.push(address);
  }
  return addresses;
}
