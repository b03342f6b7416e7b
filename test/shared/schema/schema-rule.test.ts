import assert from 'node:assert/strict';
import { describeRule } from '../../../src/shared/schema/schema-rule.js';
import { cleanTextPattern } from '../../../src/shared/schema/wire-types.js';

describe('describeRule', function () {
  it('names the range of an integer, or the bound it has', function () {
    assert.equal(
      describeRule('limit', { type: 'integer', minimum: 1, maximum: 1000 }),
      'limit must be an integer from 1 to 1000',
    );
    assert.equal(
      describeRule('n', { type: ['integer', 'null'], minimum: 0 }),
      'n must be an integer of at least 0',
    );
    assert.equal(describeRule('n', { type: 'integer' }), 'n must be an integer');
  });

  it('lists the values of an enum without null', function () {
    assert.equal(
      describeRule('s', { type: ['string', 'null'], enum: ['a', 'b', null] }),
      's must be one of a, b',
    );
  });

  it('names exclusive and inclusive bounds of a number', function () {
    const confidence = { type: 'number', exclusiveMinimum: 0, maximum: 1 };
    assert.equal(describeRule('c', confidence), 'c must be a number greater than 0 and at most 1');
    assert.equal(describeRule('r', { type: 'number', minimum: 0 }), 'r must be a number at least 0');
  });

  it('says "without control characters" only for the clean-text pattern', function () {
    const id = { type: 'string', minLength: 1, maxLength: 256, pattern: cleanTextPattern };
    assert.equal(
      describeRule('run', id),
      'run must be a string of 1..256 characters without control characters',
    );
    assert.equal(describeRule('h', { type: 'string', pattern: '^x$' }), 'h must be a string matching ^x$');
  });

  it('joins the alternatives of a oneOf and shows an example for a date-time', function () {
    const cgroup = {
      oneOf: [
        { type: 'null' },
        { type: 'string', maxLength: 9 },
        { type: 'integer', minimum: 0, maximum: 5 },
      ],
    };
    assert.equal(
      describeRule('g', cgroup),
      'g must be a string of at most 9 characters, or an integer from 0 to 5',
    );
    assert.equal(
      describeRule('t', { type: ['string', 'null'], format: 'date-time' }),
      't must be an RFC 3339 date-time, like 2026-01-01T00:00:00Z',
    );
  });
});
