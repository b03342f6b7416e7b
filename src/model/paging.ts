/** Page sizes and cursors of the paged lists (docs/contract.md "Paging"). */
import type { tags } from 'typia';
import type { Identifier, IntegerIn } from '../shared/schema/wire-types.js';
import type { EventType } from './event.js';

/** Page size when a request names none. */
export const defaultPageLimit = 100;
/** Largest page a request may ask for. */
export const maxPageLimit = 1000;

/** A page size: 1..maxPageLimit. */
export type PageLimit = IntegerIn<1, typeof maxPageLimit>;

/** A page size in a query string, defaultPageLimit when absent. */
export type PageLimitParam = PageLimit & tags.Default<typeof defaultPageLimit>;

/** The query fields every paged list reads. */
export interface PageQuery {
  /** page size */
  limit?: PageLimitParam;
  /** opaque cursor from next_cursor; only valid with the list, run and filters it was issued for */
  cursor?: string;
}

/** The query fields every paged list of one run's telemetry reads. */
export interface RunPageQuery extends PageQuery {
  /** run identifier */
  run: Identifier;
  /** event type filter */
  type?: EventType;
}
