import assert from 'node:assert/strict';
import { estimatePrice, priceFamily } from '../../src/security/signals/llm-prices.js';

describe('LLM list prices (cost signal estimates)', function () {
  it('finds the longest family a model name starts with, at a name boundary', function () {
    const cases: [string, string | null][] = [
      ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
      ['gpt-4o-2024-08-06', 'gpt-4o'],
      ['gpt-4.1-nano', 'gpt-4.1-nano'],
      ['gpt-5.1', 'gpt-5'],
      ['o3-pro-2025-06-10', 'o3-pro'],
      ['claude-sonnet-4-5-20250929', 'claude-sonnet-4'],
      ['claude-opus-4-5-20251101', 'claude-opus-4-5'],
      ['claude-sonnet-4@20250514', 'claude-sonnet-4'],
      ['gpt-4', null],
      ['gpt-4ox', null],
      ['o30', null],
      ['local-llama', null],
    ];
    assert.deepEqual(
      cases.map(([model]) => [model, priceFamily(model)]),
      cases,
    );
    assert.equal(priceFamily(null), null);
  });

  it('prices cached and cache-written tokens apart from the rest of the prompt', function () {
    // claude-sonnet-4: $3 in, $0.30 cache read, $3.75 cache write, $15 out per million tokens
    const tokens = {
      input_tokens: 2112,
      output_tokens: 34,
      cached_input_tokens: 2000,
      cache_write_tokens: 100,
    };
    assert.equal(
      estimatePrice('claude-sonnet-4-5', tokens),
      (12 * 3 + 2000 * 0.3 + 100 * 3.75 + 34 * 15) / 1e6,
    );
    assert.equal(estimatePrice('no-such-model', tokens), null);
  });
});
