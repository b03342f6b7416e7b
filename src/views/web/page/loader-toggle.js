// The "show loader and locale opens" toggle of a view of a run: ticked or not, it reads the view
// again (with all=true when ticked) and shows what it answers in place of what was there.
import { el, show } from './dom.js';

/**
 * A paragraph holding the toggle `id`; on change it calls `read(all)` (all: `{ all: 'true' }` or
 * `{}`, to pass to the view) and shows the nodes it resolves to in `body`, or the error.
 */
export function loaderToggle(id, body, read) {
  const toggle = el('input', { type: 'checkbox', id });
  const label = el('label', { for: id }, ' show loader and locale opens');
  toggle.addEventListener('change', async () => {
    toggle.disabled = true;
    try {
      show(body, await read(toggle.checked ? { all: 'true' } : {}));
    } catch (error) {
      show(body, el('p', { class: 'error' }, String(error.message)));
    } finally {
      toggle.disabled = false;
    }
  });
  return el('p', {}, toggle, label);
}

/**
 * A section of a view of a run with its toggle: `render(view, all)` of the view read first, and
 * again of `read(all)` each time the toggle changes.
 */
export function toggledSection({ id, title, toggleId, view, read, render }) {
  const body = el('div', {});
  const toggle = loaderToggle(toggleId, body, async (all) => render(await read(all), all));
  show(body, render(view, {}));
  return el('section', { id }, el('h2', {}, title), toggle, body);
}
