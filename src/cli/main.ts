#!/usr/bin/env node
// provd's entry point. Its static imports are all read before anything runs, on libuv's threads, and
// each of those threads takes a malloc arena: so it caps the arenas first, with the few modules that
// needs, and only then loads the command line (cli.ts).
import './malloc-arenas.js';

await import('./cli.js');
