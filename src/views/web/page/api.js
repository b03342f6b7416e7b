// Reads provd's JSON endpoints with same-origin fetches that carry the token the user gave this
// tab. The token lives in sessionStorage (this tab only, gone when it closes), never in a cookie
// or a URL the server sees: `provd ui` hands it over in the fragment, which browsers never send.

const tokenKey = 'provd.token';

/** The daemon refused the token (401): it is missing or wrong. */
export class TokenRefused extends Error {
  constructor(sent, message) {
    super(message);
    this.sent = sent;
  }
}

/** The daemon answered an error body (`provenance.error/v1`) or something that is not JSON. */
export class DaemonError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Moves a `token=` in the fragment into sessionStorage and takes it out of the address bar. */
export function adoptFragmentToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  if (token === null) return;
  if (token !== '') sessionStorage.setItem(tokenKey, token);
  params.delete('token');
  const rest = params.toString();
  history.replaceState(null, '', location.pathname + (rest === '' ? '' : `#${rest}`));
}

export function storedToken() {
  return sessionStorage.getItem(tokenKey) ?? '';
}

export function storeToken(token) {
  sessionStorage.setItem(tokenKey, token);
}

export function forgetToken() {
  sessionStorage.removeItem(tokenKey);
}

/**
 * GETs `path` with `params` and resolves with the parsed body of a 2xx answer, or of a status in
 * `alsoAccepted` (verify's 503 is a VerifyResult). Rejects with TokenRefused on 401, DaemonError
 * on any other answer.
 */
export async function getJson(path, params = {}, alsoAccepted = []) {
  const token = storedToken();
  const query = new URLSearchParams(params).toString();
  const response = await fetch(query === '' ? path : `${path}?${query}`, {
    headers: token === '' ? {} : { authorization: `Bearer ${token}` },
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
  });
  let body;
  try {
    body = await response.json();
  } catch {
    throw new DaemonError(response.status, 'not_json', `${path} answered HTTP ${response.status}, not JSON`);
  }
  if (response.status === 401) throw new TokenRefused(token !== '', body?.error?.message ?? 'unauthorized');
  if (response.ok || alsoAccepted.includes(response.status)) return body;
  const code = body?.error?.code ?? 'unknown';
  throw new DaemonError(response.status, code, body?.error?.message ?? `HTTP ${response.status}`);
}
