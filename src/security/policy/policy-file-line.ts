/**
 * The line of a rules file that a loader message is about, so `provd policy check` can say
 * FILE:LINE as compilers do. The loader's messages name a place (`rules[2] (no-nc): match[1].paths
 * must ...`); this walks that path in the file's YAML tree (JSON is YAML too) to the node's line.
 */
import type { Node } from 'yaml';
import { yaml } from '../../shared/yaml.js';

/** The 1-based line `message` points at in `text`, or undefined when it names no place there. */
export function policyErrorLine(text: string, message: string): number | undefined {
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const parsed = /at line (\d+), column \d+|nested too deep to parse \((\d+):/.exec(message);
  if (parsed !== null) return Number(parsed[1] ?? parsed[2]);
  const position = /at position (\d+)/.exec(message);
  if (position !== null) return lineOf(Number(position[1]));
  const counter = new (yaml().LineCounter)();
  let root: unknown;
  try {
    root = yaml().parseDocument(text, { lineCounter: counter }).contents;
  } catch {
    return undefined; // the file's own parse error was located above; nothing more to find
  }
  const found = find(root, placeIn(message));
  return found?.range == null ? undefined : counter.linePos(found.range[0]).line;
}

/** One step down the file: a key, a list index, or a rule by its id (its nth occurrence). */
type Step = string | number | { id: string; nth: number };

/** The path a message names: keys and list indexes from the file's top. */
function placeIn(message: string): Step[] {
  const unknown = /unknown field "([^"]*)"/.exec(message)?.[1];
  const twice = /^rule id "([^"]*)" is given twice/.exec(message)?.[1];
  if (twice !== undefined) return ['rules', { id: twice, nth: 2 }];
  const compiled = /^rule "([^"]*)": /.exec(message)?.[1];
  if (compiled !== undefined) return ['rules', { id: compiled, nth: 1 }];
  const rule = /^rules\[(\d+)\](?: \([^)]*\))?:? (\S+)/.exec(message);
  const path: Step[] = [];
  if (rule !== null) {
    path.push('rules', Number(rule[1]));
    for (const segment of rule[2]!.replace(/:$/, '').split('.')) {
      const [, key, index] = /^(\w+)(?:\[(\d+)\])?$/.exec(segment) ?? [];
      if (key === undefined) break;
      path.push(key);
      if (index !== undefined) path.push(Number(index));
    }
  } else {
    const top = /^(include_default_rules|rules) /.exec(message)?.[1];
    if (top !== undefined) path.push(top);
  }
  if (unknown !== undefined) path.push(unknown);
  return path;
}

/** The deepest node along `path` (a key's own node for the last step, so the line shows the key). */
function find(root: unknown, path: readonly Step[]): Node | undefined {
  const { isMap, isScalar, isSeq } = yaml();
  let node = root as Node | undefined;
  for (const step of path) {
    if (isMap(node) && typeof step === 'string') {
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === step);
      // a word of the message that is no key here (`unknown field "x"`, a missing key): stay put
      if (pair !== undefined) node = (pair.value ?? pair.key) as Node;
    } else if (isSeq(node) && typeof step === 'number') {
      const item = node.items[step] as Node | undefined;
      if (item === undefined) break;
      node = item;
    } else if (isSeq(node) && typeof step === 'object') {
      const rules = node.items.filter((item) => isMap(item) && item.get('id') === step.id);
      const item = rules[step.nth - 1] as Node | undefined;
      if (item === undefined) break;
      node = item;
    } else break;
  }
  return node;
}
