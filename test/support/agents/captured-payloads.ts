/**
 * The hook payloads the three agent CLIs really sent, one per agent, event and tool
 * (test/fixtures/agents/hook-payloads.jsonl, copied from ../shared/data/agents/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/shared/package-root.js';

/** One captured payload: the agent (`claude`, `codex`, `gemini`, or a variant such as `claude-...`) and its event. */
export interface CapturedPayload {
  agent: string;
  event: string;
  payload: Record<string, unknown>;
}

/** Every captured payload, in the file's order. */
export function capturedPayloads(): CapturedPayload[] {
  return readFileSync(join(packageRoot, 'test', 'fixtures', 'agents', 'hook-payloads.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CapturedPayload);
}
