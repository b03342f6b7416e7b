// The web view's entry: takes over a token from the fragment, then shows the view the fragment
// names (`#run=ID`: one run; nothing: the list of runs) and re-renders when the fragment changes.
import {
  adoptFragmentToken,
  DaemonError,
  forgetToken,
  storedToken,
  storeToken,
  TokenRefused,
} from './api.js';
import { el, show } from './dom.js';
import { renderRun } from './run-view.js';
import { renderRuns } from './runs-view.js';

const view = document.getElementById('view');
const forgetButton = document.getElementById('forget-token');

/** Counts renders, so a slow answer of a view the user left does not paint over the current one. */
let renders = 0;

async function render() {
  const current = ++renders;
  forgetButton.hidden = storedToken() === '';
  const params = new URLSearchParams(location.hash.slice(1));
  const run = params.get('run');
  view.dataset.state = 'loading';
  show(view, el('p', { class: 'note' }, 'Loading…'));
  try {
    const nodes = run === null || run === '' ? await renderRuns() : await renderRun(run);
    if (current !== renders) return;
    show(view, nodes);
    view.dataset.state = 'ready';
  } catch (error) {
    if (current !== renders) return;
    showFailure(error);
  }
}

function showFailure(error) {
  if (error instanceof TokenRefused) {
    view.dataset.state = 'token';
    const why = error.sent
      ? 'The daemon refused this token (401): it is wrong. Enter the token the daemon runs with.'
      : 'This daemon runs with --auth-token: enter its token (or open the URL `provd ui` prints).';
    show(view, el('p', { class: 'error', id: 'token-problem' }, why), tokenForm());
    return;
  }
  view.dataset.state = 'error';
  const what =
    error instanceof DaemonError
      ? `The daemon answered ${error.status} ${error.code}: ${error.message}`
      : `The daemon could not be read: ${error instanceof Error ? error.message : String(error)}`;
  show(view, el('p', { class: 'error', id: 'daemon-error' }, what));
}

/** Asks for the token; it goes to this tab's sessionStorage, never into a URL. */
function tokenForm() {
  const input = el('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    required: true,
    'aria-label': 'token',
  });
  const form = el(
    'form',
    { class: 'token', id: 'token-form' },
    input,
    el('button', { type: 'submit' }, 'Use token'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    storeToken(input.value);
    void render();
  });
  return form;
}

forgetButton.addEventListener('click', () => {
  forgetToken();
  void render();
});
window.addEventListener('hashchange', () => {
  adoptFragmentToken();
  void render();
});
adoptFragmentToken();
void render();
