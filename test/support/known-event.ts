/** One event line with its expected content hash, for tests of the hash and of what the store keeps. */

/**
 * A known answer, fixed by hand: the line, the canonical text its facts hash over, and that text's
 * sha256 (computed with `printf '%s' TEXT | sha256sum`, not with provd). If any of these changes,
 * every stored event's hash changes with it: that is a new store format, never a silent edit.
 */
export const knownLine =
  '{"event_type":"execve","timestamp":"2026-01-01T00:00:01.000000123Z","pid":4242,"tgid":4242,"ppid":1,' +
  '"uid":1000,"comm":"curl","cgroup_id":12345,"path":"/usr/bin/curl","argv":["curl","-s","http://169.254.169.254/"]}';
export const knownText =
  '{"attrs":{"argv":["curl","-s","http://169.254.169.254/"],"path":"/usr/bin/curl"},"cgroup_id":"12345",' +
  '"comm":"curl","container_id":null,"pid":4242,"ppid":1,"source":"native_jsonl","tgid":4242,' +
  '"time":"2026-01-01T00:00:01.000000123Z","type":"execve","uid":1000}';
export const knownHash = 'sha256:4653b95618155c5f7feed9aa16c88f42c03712956affb72b3a1ec339b7900ef2';
