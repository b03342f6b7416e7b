/**
 * Value types of request and response bodies. Their typia tags make one declaration both the
 * JSON Schema of the OpenAPI document and, for requests, the check a validator runs.
 */
import type { tags } from 'typia';

/** Text without C0 or C1 control characters (DEL included), as a JSON Schema pattern. */
export const cleanTextPattern = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

/**
 * A string of Min..Max UTF-16 units without control characters: ids end up in logs, SQL rows and
 * JSON answers, where those corrupt or spoof output. (Unpaired surrogates no pattern can refuse.)
 */
export type CleanText<Min extends number, Max extends number> = string &
  tags.MinLength<Min> &
  tags.MaxLength<Max> &
  tags.Pattern<typeof cleanTextPattern>;

/** An identifier a client names: a run, a tool call, an event. */
export type Identifier = CleanText<1, 256>;

/**
 * An integer in [Min, Max]. The bounds are explicit because typia 12 writes `Type<'int32'>` and
 * `Type<'uint32'>` as a bare `integer` in the schema while its validator checks their range.
 */
export type IntegerIn<Min extends number, Max extends number> = number &
  tags.Type<'int64'> &
  tags.Minimum<Min> &
  tags.Maximum<Max>;

/** Any integer. */
export type Integer = number & tags.Type<'int64'>;

/** A count: an integer of 0 or more. */
export type Count = number & tags.Type<'uint64'>;

/** A number in [0, 1]: a confidence or a ratio. */
export type Ratio = number & tags.Minimum<0> & tags.Maximum<1>;

/**
 * An RFC 3339 date-time. The format is a schema annotation only: parseRfc3339 decides what a
 * request may carry (any fraction, offsets), which typia's own date-time check does not match.
 */
export type DateTimeText = string & tags.JsonSchemaPlugin<{ format: 'date-time' }>;
