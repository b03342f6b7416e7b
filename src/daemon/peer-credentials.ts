/**
 * The pid, uid and gid of a Unix socket's peer, from the kernel (SO_PEERCRED), through the hash
 * addon (native/hash/peer-credentials.cc: Node does not expose them). The hook socket's only
 * authentication: without the addon there is no hook socket.
 */
import { loadHashAddon } from '../provenance/hash-addon.js';

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
  const addon = loadHashAddon() as Partial<PeerAddon> | null;
  return typeof addon?.peerCredentials === 'function' ? (addon as PeerAddon) : null;
}

const addon = loadAddon();

/** Reads the peer's credentials of a connected Unix socket's fd; null without the addon. */
export const readPeerCredentials: ((fd: number) => PeerCredentials) | null =
  addon === null ? null : (fd) => addon.peerCredentials(fd);
