// "More": reads the next page of a keyset-paged list (next_cursor) and appends its items.
import { el } from './dom.js';

/**
 * A button that fetches the page after `page` with `next(cursor)` and hands each item of `key` to
 * `append`; null when `page` is the last one.
 */
export function moreButton(page, next, key, append) {
  if (page.next_cursor === null || page.next_cursor === undefined) return null;
  let cursor = page.next_cursor;
  const button = el('button', { type: 'button', class: 'more' }, 'More');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const following = await next(cursor);
      for (const item of following[key]) append(item);
      cursor = following.next_cursor;
      if (cursor === null) button.remove();
    } catch (error) {
      button.replaceWith(el('p', { class: 'error' }, `Could not read more: ${error.message}`));
      return;
    }
    button.disabled = false;
  });
  return button;
}
