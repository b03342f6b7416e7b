/**
 * Real producer lines to build ingest bodies from: every JSON Lines fixture of the repository
 * (test/fixtures and test/fixtures/real: provd's native format, Tetragon and Falco exports), sorted
 * by the format they are in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

export type ProducerFormat = 'native' | 'tetragon' | 'falco';

/** Lines by producer format; each list is non-empty. */
export type NdjsonCorpus = Readonly<Record<ProducerFormat, readonly string[]>>;

/** The format a fixture line is in, by its top-level keys (what the daemon's `auto` also reads). */
function formatOf(line: string): ProducerFormat | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.includes('output_fields') || keys.includes('rule')) return 'falco';
  if (keys.includes('event_type') || keys.includes('type')) return 'native';
  if (keys.some((key) => key.startsWith('process_'))) return 'tetragon';
  return undefined;
}

/** Reads the corpus from the fixtures beside the sources. */
export function loadCorpus(): NdjsonCorpus {
  const corpus: Record<ProducerFormat, string[]> = { native: [], tetragon: [], falco: [] };
  for (const dir of ['test/fixtures', 'test/fixtures/real']) {
    const folder = join(packageRoot, dir);
    for (const name of readdirSync(folder).filter((file) => file.endsWith('.jsonl')))
      for (const line of readFileSync(join(folder, name), 'utf8').split('\n')) {
        const format = formatOf(line.trim());
        if (format !== undefined) corpus[format].push(line.trim());
      }
  }
  for (const [format, lines] of Object.entries(corpus))
    if (lines.length === 0) throw new Error(`no ${format} lines among the fixtures`);
  return corpus;
}
