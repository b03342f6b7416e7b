import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/model/canonical-json.js';

describe('canonicalJson', function () {
  it('orders keys by UTF-16 code units as RFC 8785 section 3.2.3 shows', function () {
    const value = {
      '\u20ac': 'Euro',
      '\r': 'CR',
      '\ufb33': 'Hebrew',
      '1': 'One',
      '\u0080': 'Control',
      '\ud83d\ude00': 'Smiley',
      '\u00f6': 'Latin',
    };
    assert.equal(
      canonicalJson(value),
      '{"\\r":"CR","1":"One","\u0080":"Control","\u00f6":"Latin","\u20ac":"Euro","\ud83d\ude00":"Smiley","\ufb33":"Hebrew"}',
    );
  });

  it('writes numbers, nesting and whitespace-free text as ECMAScript does', function () {
    assert.equal(
      canonicalJson({ b: [1e21, -0, 0.1, 1e-7], a: { z: null, y: true } }),
      '{"a":{"y":true,"z":null},"b":[1e+21,0,0.1,1e-7]}',
    );
    assert.equal(
      canonicalJson({ s: 'line\nbreak "quoted" \u0007' }),
      '{"s":"line\\nbreak \\"quoted\\" \\u0007"}',
    );
  });

  it('leaves out undefined members and writes undefined array items as null', function () {
    assert.equal(canonicalJson({ a: undefined, b: [undefined, 1] }), '{"b":[null,1]}');
  });

  it('refuses values JSON cannot carry', function () {
    for (const bad of [NaN, Infinity, 10n, () => 1]) assert.throws(() => canonicalJson({ bad }), TypeError);
  });
});
