/**
 * Process lineage for the causality view: the processes of one tool call nested by ppid, bounded
 * in children per parent and in depth. A process is a child of the process whose tgid is its ppid
 * when that process is among the same tool call's; otherwise it is a root. pid reuse can make ppid
 * links loop: a process no root reaches starts a root of its own, and no process is placed twice.
 * Runs over one aggregate row per process, never over events.
 */
import { addCounts, noEvents } from './event-counts.js';
import type { CutNodes, EventCounts } from './timeline-causality.js';

/** A process as the lineage places it. */
export interface LineageItem {
  /** null: events without a tgid or pid; such a process is nobody's parent. */
  tgid: number | null;
  ppid: number | null;
  firstNs: bigint;
  counts: EventCounts;
}

/** How much of the lineage is shown. */
export interface LineageBounds {
  perParent: number;
  /** Levels of processes; roots are level 1. */
  depth: number;
}

/** A shown process, its shown children, and what the bounds cut below it. */
export interface LineageNode<T> {
  item: T;
  children: LineageNode<T>[];
  omitted: CutNodes;
}

/** The shown roots, and the roots the bound cut. */
export interface Lineage<T> {
  roots: LineageNode<T>[];
  omitted: CutNodes;
}

/** Earlier first event first; tgid breaks ties (null last). */
function byFirstEvent(a: LineageItem, b: LineageItem): number {
  if (a.firstNs !== b.firstNs) return a.firstNs < b.firstNs ? -1 : 1;
  return (a.tgid ?? Infinity) - (b.tgid ?? Infinity);
}

/** Nests `items` by ppid within `bounds`; every item is either in a node or counted as omitted. */
export function buildLineage<T extends LineageItem>(items: readonly T[], bounds: LineageBounds): Lineage<T> {
  const sorted = [...items].sort(byFirstEvent);
  const byTgid = new Map<number, T>();
  for (const item of sorted) if (item.tgid !== null) byTgid.set(item.tgid, item);
  const children = new Map<T, T[]>();
  const roots: T[] = [];
  for (const item of sorted) {
    const parent = item.ppid === null || item.ppid === item.tgid ? undefined : byTgid.get(item.ppid);
    if (parent === undefined) roots.push(item);
    else if (children.has(parent)) children.get(parent)!.push(item);
    else children.set(parent, [item]);
  }
  const childrenOf = (item: T): readonly T[] => children.get(item) ?? [];

  // what no root reaches hangs in a ppid loop: its earliest process starts a root
  const reached = new Set<T>();
  const reach = (start: T): void => walk(start, childrenOf, reached, () => undefined);
  roots.forEach(reach);
  for (const item of sorted) {
    if (reached.has(item)) continue;
    roots.push(item);
    reach(item);
  }

  const placed = new Set<T>();
  const place = (level: readonly T[], depth: number): Lineage<T> => {
    const nodes: LineageNode<T>[] = [];
    const omitted: CutNodes = { count: 0, events: noEvents() };
    for (const item of level) {
      if (placed.has(item)) continue;
      if (nodes.length < bounds.perParent && depth <= bounds.depth) {
        placed.add(item);
        const below = place(childrenOf(item), depth + 1);
        nodes.push({ item, children: below.roots, omitted: below.omitted });
      } else {
        omitted.count++;
        walk(item, childrenOf, placed, (cut) => addCounts(omitted.events, cut.counts));
      }
    }
    return { roots: nodes, omitted };
  };
  return place(roots.sort(byFirstEvent), 1);
}

/** Visits `start` and everything under it not yet in `seen` (iteratively: chains can be deep). */
function walk<T>(
  start: T,
  childrenOf: (item: T) => readonly T[],
  seen: Set<T>,
  visit: (item: T) => void,
): void {
  const stack = [start];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (seen.has(item)) continue;
    seen.add(item);
    visit(item);
    for (const child of childrenOf(item)) stack.push(child);
  }
}
