/**
 * The pid, uid and gid of a Unix socket's peer, from the kernel (SO_PEERCRED), through the hash
 * addon (native/hash/peer-credentials.cc: Node does not expose them). The hook socket's only
 * authentication: without the addon there is no hook socket.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { hashAddonPath } from '../provenance/batch-hash.js';

/** What the kernel says of a socket's peer: its credentials when it called connect(). */
export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

interface PeerAddon {
  // must match native/hash/peer-credentials.h: peerCredentials(fd)
  peerCredentials(fd: number): PeerCredentials;
}

function loadAddon(): PeerAddon | null {
  if (!existsSync(hashAddonPath)) return null;
  try {
    const addon = createRequire(import.meta.url)(hashAddonPath) as Partial<PeerAddon>;
    return typeof addon.peerCredentials === 'function' ? (addon as PeerAddon) : null;
  } catch {
    return null;
  }
}

const addon = loadAddon();

/** Reads the peer's credentials of a connected Unix socket's fd; null without the addon. */
export const readPeerCredentials: ((fd: number) => PeerCredentials) | null =
  addon === null ? null : (fd) => addon.peerCredentials(fd);
