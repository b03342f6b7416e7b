/**
 * Imported first by main.ts, so it runs before any other module of provd: for `provd daemon`, caps
 * glibc's malloc arenas at two before the daemon's threads start allocating
 * (native/hash/malloc-arenas.cc says why). glibc fixes its limit once a ninth arena exists, and a
 * thread keeps the arena it first allocated from, so later is too late. A MALLOC_ARENA_MAX the user
 * set is glibc's already and stays.
 */
import { limitMallocArenas } from '../provenance/batch-hash.js';

if (process.argv[2] === 'daemon' && process.env['MALLOC_ARENA_MAX'] === undefined) limitMallocArenas(2);
