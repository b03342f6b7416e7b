/** What a command printing one page of a run's list shares (`provd risks`, `provd responses`). */
import { Option } from 'clipanion';
import { printDaemonBody } from './output/print-daemon-body.js';
import type { Style } from './output/style.js';
import { morePagesHint, pageQuery, RunQueryCommand } from './run-query-command.js';

/** A page of a run's list, as the daemon answers it. */
export interface RunPage {
  next_cursor: string | null;
}

/**
 * `provd VERB RUN [--limit N] [--cursor C] [--json]`: one page of `path`, its body unchanged with
 * `--json`, else as `format` prints it; stderr names the next page's command when more follow.
 */
export abstract class RunPageCommand<Page extends RunPage> extends RunQueryCommand {
  limit = Option.String('--limit', { description: 'how many per page, 1..1000 (default 100)' });
  cursor = Option.String('--cursor', { description: 'the page after the one that named this cursor' });

  /** What the page lists (`risks`), its endpoint, and its body's schema name. */
  protected abstract readonly what: string;
  protected abstract readonly endpoint: string;
  protected abstract readonly schema: string;
  protected abstract isPage(body: unknown): body is Page;
  protected abstract format(page: Page, style: Style): string;

  protected async executeAt(baseUrl: string): Promise<number> {
    let query: URLSearchParams;
    try {
      query = pageQuery(this.run, this.limit, this.cursor);
    } catch (error) {
      return this.refuseUsage(error);
    }
    return printDaemonBody(baseUrl, `${this.endpoint}?${query.toString()}`, this.context, {
      json: this.json,
      schema: this.schema,
      is: (body): body is Page => this.isPage(body),
      render: (page) => this.format(page, this.style),
      note: (page) => morePagesHint(this.what, `${this.what} ${this.run}`, page.next_cursor),
    });
  }
}
