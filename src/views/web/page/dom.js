// Builds DOM nodes. Everything the daemon answers is untrusted text (commands, paths and argv that
// agents chose): it only ever becomes text nodes, never markup, so nothing here parses HTML.

/**
 * An element with attributes and children; a string or number child becomes a text node, null and
 * undefined are skipped. Attribute names come from this code, never from data.
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** A link to a view of this page: only ever a fragment, so data cannot make it a javascript: URL. */
export function viewLink(params, ...children) {
  return el('a', { href: `#${new URLSearchParams(params).toString()}` }, ...children);
}

/** A table with a header row and one row per item; `cells` maps an item to its cells. */
export function table(headings, items, cells, attributes = {}) {
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      headings.map((heading) => el('th', {}, heading)),
    ),
  );
  const body = el(
    'tbody',
    {},
    items.map((item) => rowOf(cells(item))),
  );
  return el('table', attributes, head, body);
}

/** One row: a cell is text, a node, or `{ mono: text }` for commands, paths and ids. */
export function rowOf(cells) {
  return el(
    'tr',
    {},
    cells.map((cell) =>
      cell !== null && typeof cell === 'object' && 'mono' in cell
        ? el('td', { class: 'mono' }, cell.mono)
        : el('td', {}, cell),
    ),
  );
}

/** Replaces what `parent` shows with `children`. */
export function show(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((child) => child !== undefined && child !== null));
}

/** A command line as one string: the command, then each argument (quoted when it holds a space). */
export function commandLine(command, args) {
  const quoted = (args ?? []).map((arg) => (/[\s"']/.test(arg) || arg === '' ? JSON.stringify(arg) : arg));
  return [command ?? '', ...quoted].join(' ');
}
