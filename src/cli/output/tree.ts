/** A tree drawn with box lines, as `pstree` and `tetra`'s process trees do. */
import type { Style } from './style.js';
import { truncate, visible } from './style.js';

/** One node: its line, and the nodes under it in order. */
export interface TreeNode {
  label: string;
  children: readonly TreeNode[];
}

/** The tree as lines: the root flush left, each child under its parent with `├─ ` / `└─ `. */
export function formatTree(root: TreeNode, style: Style): string {
  const lines: string[] = [];
  const fit = (line: string): string =>
    style.width === undefined ? visible(line) : truncate(visible(line), style.width);
  const walk = (node: TreeNode, prefix: string): void => {
    node.children.forEach((child, i) => {
      const lastChild = i === node.children.length - 1;
      lines.push(fit(prefix + (lastChild ? '└─ ' : '├─ ') + child.label));
      walk(child, prefix + (lastChild ? '   ' : '│  '));
    });
  };
  lines.push(fit(root.label));
  walk(root, '');
  return lines.map((line) => line + '\n').join('');
}
