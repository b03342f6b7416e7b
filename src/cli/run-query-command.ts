/** What every command reading one run's evidence shares: the RUN argument, `--json`, paging. */
import { Option } from 'clipanion';
import { maxPageLimit } from '../model/paging.js';
import { ProvdError } from '../shared/errors.js';
import { DaemonClientCommand } from './daemon-client-command.js';
import { styleOf, type Style } from './output/style.js';

/** A command about one run: `provd VERB RUN [--json]`; a missing RUN is a usage error (exit 2). */
export abstract class RunQueryCommand extends DaemonClientCommand {
  run = Option.String({ name: 'RUN' });
  json = Option.Boolean('--json', false, { description: "print the daemon's JSON body unchanged" });

  /** How human output looks on this command's stdout. */
  protected get style(): Style {
    return styleOf(this.context.stdout as { isTTY?: boolean; columns?: number });
  }
}

/**
 * The `run` (none: null), `limit` and `cursor` query of one page, or PROVD_ERR_CONFIG_INVALID naming
 * the option that breaks its rule (the daemon would say the same, later, as invalid_argument).
 */
export function pageQuery(
  run: string | null,
  limit: string | undefined,
  cursor: string | undefined,
): URLSearchParams {
  const query = new URLSearchParams(run === null ? {} : { run });
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > maxPageLimit) {
      throw new ProvdError(
        'PROVD_ERR_CONFIG_INVALID',
        `--limit must be an integer 1..${maxPageLimit}, got "${limit}"`,
      );
    }
    query.set('limit', limit);
  }
  if (cursor !== undefined) query.set('cursor', cursor);
  return query;
}

/** The stderr line that names the next page's command, when there is one. */
export function morePagesHint(what: string, command: string, nextCursor: string | null): string {
  return nextCursor === null ? '' : `provd: more ${what} follow: provd ${command} --cursor ${nextCursor}\n`;
}
