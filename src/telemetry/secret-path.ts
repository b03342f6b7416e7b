/**
 * Which file paths name credentials, keys, tokens or password hashes. A read of one becomes a
 * `secret_path` event, which the default policy answers with `kill`, so every rule here is narrow:
 * a false positive kills an innocent process (think of Python's `token.py` or certifi's `cacert.pem`).
 */

/**
 * The secret path rules, in one place. Paths are compared case-sensitively (Linux paths are), except
 * the secret/token words, which are case-insensitive.
 *
 * - `systemFiles`: password hashes and cluster admin credentials, matched as whole paths; also
 *   without the leading slash (older Tetragon reports `etc/shadow`) and after leading `../`.
 *   `/etc/shadowsocks.conf` is not one of them: only whole paths match.
 * - `namedFiles`: `[directory, name]` pairs; the file must sit directly in a directory of that name
 *   (`''` = any directory): `.aws/credentials`, `.aws/config`, `.kube/config`, `.docker/config.json`,
 *   `.netrc`, `.git-credentials`, `.npmrc`, `.pypirc`, `.pgpass`, gcloud's `credentials.db`,
 *   `access_tokens.db` and `application_default_credentials.json`.
 * - SSH private keys: a name starting `sshKeyPrefix` inside a `.ssh` directory, except `*.pub`;
 *   host keys `/etc/ssh/ssh_host_*_key`.
 * - `keyExtensions`: `*.pem`, `*.key`, `*.p12`, `*.pfx`, except CA trust stores (`trustStoreDirs`,
 *   `trustStoreNames`), which every TLS client reads and which hold only public certificates.
 * - `.env` and `.env.*`, except the templates named by `envTemplateSuffixes` (`.env.example`).
 * - Secret/token words: a directory named exactly `secret(s)`/`token(s)` (with or without a leading
 *   dot, e.g. `/var/run/secrets/`), or a file name with the word `secret`, `secrets` or `token`
 *   delimited by non-alphanumerics (`client_secret.json`, `.token`, `github_token`), unless the file
 *   is source code (`codeExtensions`: `token.py`, `secrets.py`). `tokens` in a file name does not
 *   count: Hugging Face models ship `special_tokens_map.json`.
 */
export const secretPathRules = {
  systemFiles: [
    '/etc/shadow',
    '/etc/shadow-',
    '/etc/gshadow',
    '/etc/gshadow-',
    '/etc/security/opasswd',
    '/etc/kubernetes/admin.conf',
  ],
  namedFiles: [
    ['.aws', 'credentials'],
    ['.aws', 'config'],
    ['.kube', 'config'],
    ['.docker', 'config.json'],
    ['', '.netrc'],
    ['', '.git-credentials'],
    ['', '.npmrc'],
    ['', '.pypirc'],
    ['', '.pgpass'],
    ['', 'credentials.db'],
    ['', 'access_tokens.db'],
    ['', 'application_default_credentials.json'],
  ],
  sshKeyPrefix: 'id_',
  sshHostKey: { directory: '/etc/ssh/', prefix: 'ssh_host_', suffix: '_key' },
  keyExtensions: ['.pem', '.key', '.p12', '.pfx'],
  trustStoreDirs: [
    '/etc/ssl/certs/',
    '/etc/pki/ca-trust/',
    '/etc/pki/tls/certs/',
    '/etc/ca-certificates/',
    '/usr/share/ca-certificates/',
    '/usr/local/share/ca-certificates/',
  ],
  trustStoreNames: ['cacert.pem', 'ca-bundle.pem', 'ca-certificates.pem', 'tls-ca-bundle.pem'],
  envFile: '.env',
  envTemplateSuffixes: ['.example', '.sample', '.template'],
  secretDirectories: ['secret', 'secrets', 'token', 'tokens'],
  secretFileWords: ['secret', 'secrets', 'token'],
  // file name extensions of source code and compiled modules, space-separated
  codeExtensions:
    'py pyc pyo pyi js mjs cjs ts mts cts jsx tsx map go rs rb java class kt c h cc cpp hpp so php pl pm lua',
} as const;

// Lookup structures built once from the rules: a few Set/Map probes per path instead of list scans.
const systemFiles = new Set<string>(secretPathRules.systemFiles.map((path) => path.slice(1)));
const namedFiles = new Map<string, string[]>();
for (const [directory, name] of secretPathRules.namedFiles) {
  namedFiles.set(name, [...(namedFiles.get(name) ?? []), directory]);
}
const trustStoreNames = new Set<string>(secretPathRules.trustStoreNames);
const secretDirectories = new Set<string>(secretPathRules.secretDirectories);
const secretFileWords = new Set<string>(secretPathRules.secretFileWords);
const wordRoots = ['secret', 'token'];
const codeExtensions = new Set<string>(secretPathRules.codeExtensions.split(' '));

/** Resolves `.`, `..` and repeated slashes; leading `..` of a relative path stay. */
function normalizePath(path: string): string {
  const absolute = path.charCodeAt(0) === 47;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (segment !== '..' || !absolute) out.push(segment);
  }
  return (absolute ? '/' : '') + out.join('/');
}

/**
 * True when a path has an empty, `.` or `..` segment (what resolving would change); hidden names
 * like `.ssh` do not count. The policy's path globs skip `posix.normalize` without one.
 */
export function needsNormalizing(path: string): boolean {
  for (let at = 0; at < path.length; at = path.indexOf('/', at) + 1) {
    if (at > 0 && path.charCodeAt(at) === 47) return true; // '//'
    if (path.charCodeAt(at) === 46) {
      const next = at + 1 < path.length ? path.charCodeAt(at + 1) : 47;
      const afterDots = at + 2 < path.length ? path.charCodeAt(at + 2) : 47;
      if (next === 47 || (next === 46 && afterDots === 47)) return true; // './' '../' or a final '.' '..'
    }
    if (path.indexOf('/', at) === -1) break;
  }
  return false;
}

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/**
 * True when `lower` (a lower-cased path) names a secret directory or file by the secret/token words.
 * Every entry of secretDirectories and secretFileWords starts with one of `wordRoots`.
 */
function hasSecretWord(lower: string): boolean {
  for (const root of wordRoots) {
    for (let at = lower.indexOf(root); at !== -1; at = lower.indexOf(root, at + 1)) {
      const start = lower.lastIndexOf('/', at) + 1;
      const slash = lower.indexOf('/', at);
      if (slash !== -1) {
        const name = lower.slice(lower.charCodeAt(start) === 46 ? start + 1 : start, slash);
        if (secretDirectories.has(name)) return true;
        continue;
      }
      if (at > start && isAlphanumeric(lower.charCodeAt(at - 1))) continue;
      let end = at + root.length;
      while (end < lower.length && isAlphanumeric(lower.charCodeAt(end))) end++;
      if (!secretFileWords.has(lower.slice(at, end))) continue;
      const dot = lower.lastIndexOf('.');
      if (dot > start && codeExtensions.has(lower.slice(dot + 1))) continue;
      return true;
    }
  }
  return false;
}

function isKeyFile(path: string, name: string): boolean {
  let extension = false;
  for (const suffix of secretPathRules.keyExtensions) if (name.endsWith(suffix)) extension = true;
  if (!extension || trustStoreNames.has(name)) return false;
  for (const directory of secretPathRules.trustStoreDirs) if (path.startsWith(directory)) return false;
  return true;
}

function isEnvFile(name: string): boolean {
  const env = secretPathRules.envFile;
  if (name === env) return true;
  if (!name.startsWith(env) || name.charCodeAt(env.length) !== 46) return false;
  for (const suffix of secretPathRules.envTemplateSuffixes) if (name.endsWith(suffix)) return false;
  return true;
}

/** True when a read of `path` is a read of credentials, keys, tokens or password hashes (see secretPathRules). */
export function isSecretPath(rawPath: string): boolean {
  if (rawPath.length === 0) return false;
  const path = needsNormalizing(rawPath) ? normalizePath(rawPath) : rawPath;

  let rest = path.charCodeAt(0) === 47 ? path.slice(1) : path;
  while (rest.startsWith('../')) rest = rest.slice(3);
  if (systemFiles.has(rest)) return true;

  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const parentStart = slash > 0 ? path.lastIndexOf('/', slash - 1) + 1 : 0;
  const parent = slash > 0 ? path.slice(parentStart, slash) : '';

  const directories = namedFiles.get(name);
  if (directories !== undefined && (directories.includes('') || directories.includes(parent))) return true;
  if (parent === '.ssh' && name.startsWith(secretPathRules.sshKeyPrefix) && !name.endsWith('.pub'))
    return true;
  const host = secretPathRules.sshHostKey;
  if (path.startsWith(host.directory) && name.startsWith(host.prefix) && name.endsWith(host.suffix))
    return true;
  if (isEnvFile(name) || isKeyFile(path, name)) return true;

  return hasSecretWord(path.toLowerCase());
}
