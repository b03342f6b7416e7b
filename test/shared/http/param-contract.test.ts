import assert from 'node:assert/strict';
import typia, { type tags } from 'typia';
import { ProvdError } from '../../../src/shared/errors.js';
import { ParamContract } from '../../../src/shared/http/param-contract.js';
import type { DateTimeText, Identifier, IntegerIn } from '../../../src/shared/schema/wire-types.js';

const colours = ['red', 'green'] as const;

interface SampleQuery {
  /** the run */
  run: Identifier;
  colour?: (typeof colours)[number];
  size?: 10 | 60;
  /** page size */
  limit?: IntegerIn<1, 1000> & tags.Default<100>;
  since?: DateTimeText;
  cursor?: string;
}

const sample = new ParamContract<SampleQuery>(
  typia.json.schema<SampleQuery, '3.1'>(),
  typia.createValidate<SampleQuery>(),
);

function parse(text: string): SampleQuery {
  return sample.parse(new URLSearchParams(text));
}

/** The message of the 400 invalid_argument that parsing `text` answers. */
function refusal(text: string): string {
  try {
    parse(text);
  } catch (error) {
    assert.ok(error instanceof ProvdError, String(error));
    assert.equal(error.code, 'invalid_argument');
    return error.message;
  }
  return assert.fail(`accepted ${text}`);
}

describe('ParamContract', function () {
  it('lists one parameter per field in declaration order with its JSDoc, requiredness and schema', function () {
    assert.deepEqual(
      sample.parameters.map(({ name, required }) => [name, required]),
      [
        ['run', true],
        ['colour', false],
        ['size', false],
        ['limit', false],
        ['since', false],
        ['cursor', false],
      ],
    );
    const [run, colour, size, limit, since] = sample.parameters;
    assert.equal(run?.description, 'the run');
    assert.equal(run?.schema['maxLength'], 256);
    assert.deepEqual(colour?.schema, { type: 'string', enum: [...colours] });
    assert.deepEqual(size?.schema, { type: 'integer', enum: [10, 60] });
    assert.deepEqual(limit?.schema, { type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    assert.equal(limit?.description, 'page size');
    assert.deepEqual(since?.schema, { type: 'string', format: 'date-time' });
  });

  it('returns typed values, numbers for integer parameters, when every value is valid', function () {
    assert.deepEqual(parse('run=r1&colour=green&size=10&limit=1000&cursor=abc'), {
      run: 'r1',
      colour: 'green',
      size: 10,
      limit: 1000,
      cursor: 'abc',
    });
    assert.deepEqual(parse('run=null'), { run: 'null' }, 'the text "null" is a string like any other');
  });

  it('ignores parameters the type does not declare', function () {
    assert.deepEqual(parse('run=r&surprise=1&surprise=2'), { run: 'r' });
  });

  it('says a required parameter is required when it is missing', function () {
    assert.equal(refusal('limit=5'), 'run is required');
  });

  it('refuses a declared parameter when it is given twice, even with equal values', function () {
    assert.equal(refusal('run=a&run=a'), 'run must be given once');
    assert.equal(refusal('run=a&cursor=x&cursor=y'), 'cursor must be given once');
  });

  it('names the range when an integer is out of range, fractional, empty or not plain digits', function () {
    for (const limit of ['0', '1001', '1.5', 'ten', '', ' 5', '1e2', '0x10', '+5', '99999999999999999999']) {
      assert.equal(
        refusal(`run=r&limit=${encodeURIComponent(limit)}`),
        'limit must be an integer from 1 to 1000',
      );
    }
  });

  it('lists the allowed values when an enum parameter holds another', function () {
    assert.equal(refusal('run=r&colour=blue'), 'colour must be one of red, green');
    assert.equal(refusal('run=r&colour='), 'colour must be one of red, green');
    assert.equal(refusal('run=r&size=30'), 'size must be one of 10, 60');
    assert.equal(refusal('run=r&size=ten'), 'size must be one of 10, 60');
  });

  it('names length and characters when an identifier is empty, too long or holds control characters', function () {
    const rule = 'run must be a string of 1..256 characters without control characters';
    for (const run of ['', 'x'.repeat(257), 'a\u0000b', 'a\nb', 'a\u007f', 'a\u0085']) {
      assert.equal(refusal(`run=${encodeURIComponent(run)}`), rule);
    }
    assert.equal(parse(`run=${'x'.repeat(256)}`).run.length, 256);
  });

  it('gives the rule of a field whose check a schema cannot state when asked', function () {
    assert.equal(
      sample.invalid('since').message,
      'since must be an RFC 3339 date-time, like 2026-01-01T00:00:00Z',
    );
    assert.equal(sample.invalid('since').code, 'invalid_argument');
  });
});
