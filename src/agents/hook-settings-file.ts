/**
 * The hook settings the policy gives, served where an agent's hook command reads them when the
 * daemon is down: `<data dir>/hooks.json`, written at each start, readable by everyone (mode 0644,
 * so a hook running as another user can read it where the data dir lets it through), holding only
 * `{"on_daemon_down":"fail_open"|"fail_closed"}`. Written to a temporary name and renamed, so a
 * reader never sees half a file.
 */
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy, HookSettings } from '../security/policy/policy.js';

export const hookSettingsFileName = 'hooks.json';

/** The policy's hook settings, defaults filled. */
export function hookSettingsOf(policy: Policy): HookSettings {
  return { on_daemon_down: policy.hooks?.on_daemon_down ?? 'fail_open' };
}

/** Writes `<dataDir>/hooks.json`; returns its path. */
export function writeHookSettings(dataDir: string, policy: Policy): string {
  const path = join(dataDir, hookSettingsFileName);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(hookSettingsOf(policy)) + '\n', { mode: 0o644 });
  chmodSync(temporary, 0o644); // the umask may have narrowed it
  renameSync(temporary, path);
  return path;
}
