import assert from 'node:assert/strict';
import {
  buildLineage,
  type LineageItem,
  type LineageNode,
} from '../../src/views/timeline/process-lineage.js';

/** A process with `events` execve events, first seen at `at`. */
function process(tgid: number | null, ppid: number | null, at: number, events = 1): LineageItem {
  return { tgid, ppid, firstNs: BigInt(at), counts: { total: events, by_type: { execve: events } } };
}

/** The tree as nested `[tgid, children]` pairs. */
function shape(nodes: readonly LineageNode<LineageItem>[]): unknown[] {
  return nodes.map((node) => [node.item.tgid, shape(node.children)]);
}

const wide = { perParent: 100, depth: 32 };

describe('buildLineage', function () {
  it('nests processes by ppid within the same set, by first event', function () {
    const lineage = buildLineage(
      [process(3, 1, 3), process(1, 0, 1), process(2, 1, 2), process(4, 3, 4), process(5, 99, 0)],
      wide,
    );
    assert.deepEqual(shape(lineage.roots), [
      [5, []],
      [
        1,
        [
          [2, []],
          [3, [[4, []]]],
        ],
      ],
    ]);
    assert.deepEqual(lineage.omitted, { count: 0, events: { total: 0, by_type: {} } });
  });

  it('places each process of a ppid loop once, from its earliest one', function () {
    const lineage = buildLineage([process(7, 8, 2), process(8, 7, 1), process(9, 9, 3)], wide);
    assert.deepEqual(shape(lineage.roots), [
      [8, [[7, []]]],
      [9, []],
    ]);
  });

  it('counts what the bounds cut, with everything under it, in the node it was cut from', function () {
    const items = [
      process(1, 0, 1),
      process(2, 1, 2),
      process(3, 1, 3, 2),
      process(4, 3, 4, 5),
      process(5, 2, 5),
      process(6, 5, 6, 7),
      process(null, null, 7),
    ];
    const lineage = buildLineage(items, { perParent: 1, depth: 2 });
    // under 1 only its first child (2) fits: 3 and its child 4 are cut there. 2's child 5 would be a
    // third level: 5 and its child 6 are cut under 2. The second root is cut at the top.
    assert.deepEqual(shape(lineage.roots), [[1, [[2, []]]]]);
    const [root] = lineage.roots;
    assert.deepEqual(root!.omitted, { count: 1, events: { total: 7, by_type: { execve: 7 } } });
    assert.deepEqual(root!.children[0]!.omitted, { count: 1, events: { total: 8, by_type: { execve: 8 } } });
    assert.deepEqual(lineage.omitted, { count: 1, events: { total: 1, by_type: { execve: 1 } } });
  });
});
