/** How much of an artifact GET /api/artifact shows: shared by its route (main thread) and its query (store). */

/** Bytes of content an answer shows when the request names no bound. */
export const defaultArtifactBytes = 65_536;
/** The most it shows: an artifact stores at most 1 MiB. */
export const maxArtifactBytes = 1_048_576;
