import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import typia, { type tags } from 'typia';
import type { JsonObject } from '../../../src/shared/schema/json-object.js';
import { tidySchema } from '../../../src/shared/schema/tidy-schema.js';
import type { Count } from '../../../src/shared/schema/wire-types.js';

// CommonJS under NodeNext: the class is the `default` of the default import
const Ajv2020 = Ajv2020Module.default;

const shades = ['light', 'dark'] as const;

/** A shape with each form typia 12 writes differently from the document. */
interface Sample {
  shade: (typeof shades)[number];
  maybeShade: (typeof shades)[number] | null;
  size: 10 | 60;
  count: Count;
  /** how many */
  countOrNull: Count | null;
  pair: [Count | null, string];
  nested: { a: string; b?: number };
  open: { [name: string]: unknown };
  counts: { [name: string]: Count };
  cover: Tagged | Other;
}
interface Tagged {
  kind: 'tagged';
}
interface Other {
  kind: 'other';
  extra: boolean & tags.Default<false>;
}

const unit = typia.json.schemas<[Sample], '3.1'>();
const components = unit.components.schemas as Record<string, JsonObject>;
const tidy = (inlineObjects: boolean): JsonObject =>
  tidySchema(components['Sample']!, { components, inlineObjects });
const property = (name: string): JsonObject =>
  (tidy(false)['properties'] as Record<string, JsonObject>)[name]!;

describe('tidySchema', function () {
  it('writes a union of literals as one enum, with null last when nullable', function () {
    assert.deepEqual(property('shade'), { type: 'string', enum: [...shades] });
    assert.deepEqual(property('maybeShade'), { type: ['string', 'null'], enum: ['light', 'dark', null] });
    assert.deepEqual(property('size'), { type: 'integer', enum: [10, 60] });
  });

  it('inlines a primitive alias without its description and keeps the property description', function () {
    assert.deepEqual(property('count'), { type: 'integer', minimum: 0 });
    assert.deepEqual(property('countOrNull'), {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'how many',
    });
  });

  it('writes a tuple with items false and minItems instead of additionalItems', function () {
    assert.deepEqual(property('pair'), {
      type: 'array',
      prefixItems: [{ type: ['integer', 'null'], minimum: 0 }, { type: 'string' }],
      minItems: 2,
      items: false,
    });
  });

  it('closes an object without an index signature and opens one with it', function () {
    assert.equal(property('nested')['additionalProperties'], false);
    assert.deepEqual(property('nested')['required'], ['a']);
    assert.equal(property('open')['additionalProperties'], true);
    assert.equal(property('open')['properties'], undefined, 'no empty properties');
    assert.equal(property('open')['required'], undefined, 'no empty required');
    assert.deepEqual(property('counts')['additionalProperties'], { type: 'integer', minimum: 0 });
    assert.equal(tidy(false)['additionalProperties'], false);
  });

  it('drops the discriminator and keeps object components by $ref unless asked to inline them', function () {
    const cover = property('cover');
    assert.equal(cover['discriminator'], undefined);
    assert.deepEqual(cover['oneOf'], [
      { $ref: '#/components/schemas/Tagged' },
      { $ref: '#/components/schemas/Other' },
    ]);
    const inlined = (tidy(true)['properties'] as Record<string, JsonObject>)['cover']!;
    assert.deepEqual(
      (inlined['oneOf'] as JsonObject[]).map((member) => member['additionalProperties']),
      [false, false],
    );
  });

  it('gives schemas Ajv 2020 compiles in strict mode that judge values as the TS type does', function () {
    const validate = new Ajv2020({ strict: true }).compile(tidy(true));
    const good = {
      ...{ shade: 'dark', maybeShade: null, size: 60, count: 0, countOrNull: null, pair: [null, 'x'] },
      ...{ nested: { a: 'a' }, open: { anything: [1] }, counts: { n: 3 }, cover: { kind: 'tagged' } },
    };
    assert.ok(validate(good), JSON.stringify(validate.errors));
    assert.ok(typia.is<Sample>(good));
    for (const [key, value] of Object.entries({
      shade: 'grey',
      size: 30,
      count: -1,
      pair: [1, 'x', 'y'],
      nested: { a: 'a', c: 1 },
      counts: { n: 1.5 },
      cover: { kind: 'tagged', extra: true },
      surprise: 1,
    })) {
      const bad: Record<string, unknown> = { ...good, [key]: value };
      assert.equal(validate(bad), false, key);
      assert.equal(typia.equals<Sample>(bad), false, key);
    }
  });
});
