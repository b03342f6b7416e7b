/**
 * Two recorded tool calls compared field by field: what they ran (command, args, cwd), how they
 * ended (executed, status, exit code, signal, error), what they wrote (each output stream, by the
 * hash of every byte it carried) and what they did to files (each effect by path). Times, pids,
 * bindings and object hashes always differ between two calls: answers show them, never compare them.
 */
import type { Count } from '../../shared/schema/wire-types.js';
import type { TimelineArtifact, TimelineFileEffect } from '../timeline/context-records.js';
import type { ToolCallFacts } from './tool-call-facts.sql.js';

/** The record fields compared one by one, in answer order. */
export const comparedRecordFields = [
  'command',
  'args',
  'cwd',
  'executed',
  'status',
  'exit_code',
  'signal',
  'error',
] as const;

/** A record field that is compared. */
export type RecordField = (typeof comparedRecordFields)[number];

/** Anything two calls can differ in: a record field, an output stream, or the file effects. */
export type ComparedField = RecordField | 'stdout' | 'stderr' | 'file_effects';

/** A record field's value. */
export type FieldValue = string | number | boolean | string[] | null;

/** One record field of both calls. */
export interface FieldComparison {
  field: RecordField;
  left: FieldValue;
  right: FieldValue;
  equal: boolean;
}

/** One output stream of both calls; equal when both carried the same bytes (or neither has it). */
export interface OutputComparison {
  stream: 'stdout' | 'stderr';
  left: TimelineArtifact | null;
  right: TimelineArtifact | null;
  equal: boolean;
}

/** The file effects of both calls, matched by path. */
export interface FileEffectsComparison {
  /** No path differs in effect, kind, size or content hashes, and none is only on one side. */
  equal: boolean;
  /** Both records saw all of cwd and kept every effect: otherwise `equal` speaks only of what they kept. */
  complete: boolean;
  /** Paths with the same effect on both sides. */
  same: Count;
  changed: { path: string; left: TimelineFileEffect; right: TimelineFileEffect }[];
  only_left: TimelineFileEffect[];
  only_right: TimelineFileEffect[];
}

/** What two calls differ in, and the detail of every compared part. */
export interface ToolCallComparison {
  /** Nothing compared differs. */
  same: boolean;
  differences: ComparedField[];
  fields: FieldComparison[];
  outputs: OutputComparison[];
  file_effects: FileEffectsComparison;
}

const equalValues = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Compares `left` with `right`. */
export function compareToolCalls(left: ToolCallFacts, right: ToolCallFacts): ToolCallComparison {
  const fields = comparedRecordFields.map((field): FieldComparison => {
    const [a, b] = [left.call[field], right.call[field]];
    return { field, left: a, right: b, equal: equalValues(a, b) };
  });
  const outputs = (['stdout', 'stderr'] as const).map((stream): OutputComparison => {
    const [a, b] = [left[stream], right[stream]];
    return { stream, left: a, right: b, equal: a?.stream_hash === b?.stream_hash };
  });
  const effects = compareEffects(left, right);
  const differences: ComparedField[] = [
    ...fields.filter((field) => !field.equal).map((field) => field.field),
    ...outputs.filter((output) => !output.equal).map((output) => output.stream),
    ...(effects.equal ? [] : ['file_effects' as const]),
  ];
  return { same: differences.length === 0, differences, fields, outputs, file_effects: effects };
}

/** The facts of an effect that make two effects on one path the same. */
const effectKey = (effect: TimelineFileEffect): string =>
  JSON.stringify([effect.effect, effect.kind, effect.size, effect.hash_before, effect.hash_after]);

function compareEffects(left: ToolCallFacts, right: ToolCallFacts): FileEffectsComparison {
  const rightByPath = new Map(right.file_effects.map((effect) => [effect.path, effect]));
  const leftPaths = new Set(left.file_effects.map((effect) => effect.path));
  const changed: FileEffectsComparison['changed'] = [];
  const onlyLeft: TimelineFileEffect[] = [];
  let same = 0;
  for (const effect of left.file_effects) {
    const other = rightByPath.get(effect.path);
    if (other === undefined) onlyLeft.push(effect);
    else if (effectKey(effect) === effectKey(other)) same++;
    else changed.push({ path: effect.path, left: effect, right: other });
  }
  const onlyRight = right.file_effects.filter((effect) => !leftPaths.has(effect.path));
  const complete = [left, right].every(
    (call) => call.file_effects_complete && call.file_effects_omitted === 0,
  );
  return {
    equal: changed.length === 0 && onlyLeft.length === 0 && onlyRight.length === 0,
    complete,
    same,
    changed,
    only_left: onlyLeft,
    only_right: onlyRight,
  };
}
