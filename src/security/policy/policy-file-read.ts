/**
 * Reads a rules file without trusting what the path names: a FIFO would block the start forever,
 * `/dev/zero` would fill memory, and a file may grow between the size check and the read. So the
 * file is opened without blocking, must be a regular file, and at most `maxBytes + 1` bytes are read.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** The file's first `maxBytes + 1` bytes, the size it had when opened (the larger is its size), its mode and owner. */
export async function readPolicyBytes(
  path: string,
  maxBytes: number,
  refuse: (message: string) => never,
): Promise<{ bytes: Buffer; size: number; mode: number; uid: number }> {
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return refuse(`cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return refuse('cannot be read: it is not a regular file');
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let filled = 0;
    for (let read = -1; read !== 0 && filled < buffer.length; filled += read)
      ({ bytesRead: read } = await handle.read(buffer, filled, buffer.length - filled, filled));
    return {
      bytes: buffer.subarray(0, filled),
      size: Math.max(stat.size, filled),
      mode: stat.mode,
      uid: stat.uid,
    };
  } finally {
    await handle.close();
  }
}
