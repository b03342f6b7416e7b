/**
 * Codex runs hooks only with the feature `hooks` on (`[features] hooks = true` in config.toml; on
 * by default in Codex 0.171, but a user may have turned it off). Sets it by editing the one line,
 * every other byte as it was; a config.toml that is not TOML is refused with the line named.
 */
import { parse, TomlError } from 'smol-toml';
import { SettingsSyntaxError } from './json-text.js';

export interface FeaturesEdit {
  text: string;
  changed: boolean;
}

/** `text` (null: no file) with `[features] hooks = true`. */
export function enableCodexHooks(text: string | null): FeaturesEdit {
  const original = text ?? '';
  if (isHooksOn(original)) return { text: original, changed: false };
  const lines = original.split('\n');
  const header = lines.findIndex((line) => /^\s*\[\s*features\s*\]\s*(#.*)?$/.test(line));
  let edited: string;
  if (header === -1) {
    const separator = original === '' || original.endsWith('\n') ? '' : '\n';
    edited = `${original}${separator}${original === '' ? '' : '\n'}[features]\nhooks = true\n`;
  } else {
    const nextTable = lines.findIndex((line, index) => index > header && /^\s*\[/.test(line));
    const end = nextTable === -1 ? lines.length : nextTable;
    const existing = lines.findIndex(
      (line, index) => index > header && index < end && /^\s*hooks\s*=/.test(line),
    );
    if (existing !== -1) lines[existing] = 'hooks = true';
    else lines.splice(header + 1, 0, 'hooks = true');
    edited = lines.join('\n');
  }
  if (!isHooksOn(edited))
    throw new SettingsSyntaxError(
      'features.hooks is set in a form provd does not edit: set features.hooks = true there',
      1,
    );
  return { text: edited, changed: true };
}

/** Whether the TOML text turns Codex's hooks on; refuses text that is not TOML. */
function isHooksOn(text: string): boolean {
  let config: Record<string, unknown>;
  try {
    config = parse(text);
  } catch (error) {
    if (error instanceof TomlError) throw new SettingsSyntaxError(error.message.split('\n')[0]!, error.line);
    throw error;
  }
  const features = config['features'];
  return (
    typeof features === 'object' &&
    features !== null &&
    (features as Record<string, unknown>)['hooks'] === true
  );
}
