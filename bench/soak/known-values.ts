/**
 * Values the soak knows exist in the daemon's store (runs, tool calls, events, object hashes,
 * baselines, cursors), gathered from its answers, by the parameter and field names that take them.
 */

/** Which kind of value each parameter or body field name takes. */
const kindOf: Readonly<Record<string, string>> = {
  run: 'run',
  run_id: 'run',
  'other-run': 'run',
  runs: 'run',
  'tool-call': 'tool_call',
  tool_call_id: 'tool_call',
  'other-tool-call': 'tool_call',
  event: 'event',
  hash: 'hash',
  artifact: 'hash',
  process: 'process',
  process_id: 'process',
  file: 'file',
  risk: 'risk',
  name: 'baseline',
  baseline: 'baseline',
  q: 'word',
  cgroup_id: 'cgroup',
  session_id: 'session',
};

/** A growing pool of known values; bounded per kind, so a long soak keeps a fresh sample. */
export class KnownValues {
  private readonly byKind = new Map<string, unknown[]>();
  private static readonly perKind = 200;

  /** Values for a parameter or field named `name` (none for names it does not know). */
  values(name: string): readonly unknown[] {
    return this.byKind.get(kindOf[name] ?? '') ?? [];
  }

  /** Cursors the daemon issued, for any query. */
  get cursors(): readonly string[] {
    return (this.byKind.get('cursor') ?? []) as string[];
  }

  /** Adds a value of `kind` (`run`, `tool_call`, `event`, `hash`, `cursor`, ...). */
  add(kind: string, value: unknown): void {
    if (value === null || value === undefined || value === '') return;
    const list = this.byKind.get(kind) ?? [];
    if (list.includes(value)) return;
    if (list.length >= KnownValues.perKind) list.splice(1, 1); // keep the first: the seeded run
    list.push(value);
    this.byKind.set(kind, list);
  }

  /**
   * Gathers what an answer names: ids and hashes of events, tool calls, objects and risks, and its
   * next cursor. Walks the JSON, so every body shape contributes without a list per endpoint.
   */
  learn(body: unknown, depth = 0): void {
    if (depth > 6 || body === null || typeof body !== 'object') return;
    if (Array.isArray(body)) {
      for (const item of body.slice(0, 20)) this.learn(item, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (typeof value === 'string') {
        if (key === 'next_cursor') this.add('cursor', value);
        else if (key === 'run_id') this.add('run', value);
        else if (key === 'tool_call_id') this.add('tool_call', value);
        else if (key === 'process_id') this.add('process', value);
        else if (key === 'risk_id') this.add('risk', value);
        else if (/^sha256:[0-9a-f]{64}$/.test(value)) this.add('hash', value);
        else if (key === 'id' && /^b[0-9a-z]+-/.test(value)) this.add('event', value);
        else if (key === 'path' && value.startsWith('/')) this.add('file', value);
      } else this.learn(value, depth + 1);
    }
  }
}
