/**
 * The export's size limit, read by both ends: the daemon refuses to build a larger archive (it
 * holds it in memory), and `provd export` reads no more than this from an answer.
 */

/** The largest export archive, in bytes: the daemon answers 400 past it, the CLI stops reading past it. */
export const maxExportArchiveBytes = 256 * 1024 * 1024;
