/**
 * The web view's files: one HTML page, its script and its style, served as bytes read once at
 * startup from src/views/web/page/ (no build step: the same files run from src/ and dist/). They
 * hold no data and no secret, so they need no token; the script reads the JSON endpoints with
 * same-origin fetches that carry the token the user gave it (docs/web.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { errorReply, type HttpReply } from '../../shared/http/http-reply.js';

/** Where the page files live, relative to the package root. */
export const webPageDir = join(packageRoot, 'src', 'views', 'web', 'page');

/** The web view's address; `/` redirects to it. */
export const webViewPath = '/ui';

/** Media types by file extension; a file of another kind in the page folder is not served. */
const mediaTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * What every page answer carries. The page's only script and style are its own files, and it talks
 * only to its own origin (CSP); no other site may frame it (clickjacking), sniff its types, learn
 * its URL from a Referer, or open it and keep a handle on its window.
 */
const pageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-cache',
};

/** The web view's answers, by path; `reply` is undefined for every path that is not the view's. */
export class WebPages {
  private constructor(private readonly replies: ReadonlyMap<string, HttpReply>) {}

  /**
   * Reads the page files once: index.html is the view at /ui, every other file is /ui/<name> (the
   * script's modules, the style). A missing folder fails the daemon's start, not a later request.
   */
  static load(dir = webPageDir): WebPages {
    const replies = new Map<string, HttpReply>();
    for (const file of readdirSync(dir).sort()) {
      const type = mediaTypes[extname(file)];
      if (type === undefined) continue;
      const body = new Uint8Array(readFileSync(join(dir, file)));
      const path = file === 'index.html' ? webViewPath : `${webViewPath}/${file}`;
      replies.set(path, { status: 200, body, headers: { ...pageHeaders, 'content-type': type } });
    }
    if (!replies.has(webViewPath)) throw new Error(`failed to load the web view: no index.html in ${dir}`);
    const redirect = { ...pageHeaders, 'content-type': 'text/plain; charset=utf-8', location: webViewPath };
    replies.set('/', { status: 303, body: `see ${webViewPath}\n`, headers: redirect });
    return new WebPages(replies);
  }

  /** The answer to `method` on `path`, or undefined when the path is not the view's. */
  reply(method: string, path: string): HttpReply | undefined {
    const reply = this.replies.get(path);
    if (reply === undefined) return undefined;
    if (method === 'GET' || method === 'HEAD') return reply;
    return errorReply('method_not_allowed', `${method} is not allowed on ${path}; allowed: GET, HEAD`, {
      allow: 'GET, HEAD',
    });
  }
}
