import assert from 'node:assert/strict';
import { lossNews } from '../../src/sensor/loss-news.js';

describe('sensor loss news', function () {
  // what the kernel's counters said at a report, by `kind probe`, and what earlier reports sent
  const reported = new Map([
    ['filtered file_open', 24_642],
    ['ring_full file_open', 0],
  ]);

  // a report later: left-out counts moved, no loss
  const current = new Map([
    ['filtered file_open', 41_397],
    ['filtered exec', 353],
    ['ring_full file_open', 0],
  ]);

  it('sends nothing when the only news is events capture agents left out and they are not due', function () {
    assert.deepEqual(lossNews(current, reported, [], false), []);
  });

  it('sends the left-out counts once they are due, what each gained since the last report', function () {
    assert.deepEqual(lossNews(current, reported, [], true), [
      { kind: 'filtered', probe: 'file_open', count: 16_755 },
      { kind: 'filtered', probe: 'exec', count: 353 },
    ]);
  });

  it('takes the left-out counts along with any loss, due or not', function () {
    const current = new Map([
      ['filtered file_open', 24_700],
      ['ring_full file_open', 12],
    ]);
    assert.deepEqual(lossNews(current, reported, [], false), [
      { kind: 'filtered', probe: 'file_open', count: 58 },
      { kind: 'ring_full', probe: 'file_open', count: 12 },
    ]);
    const target = {
      kind: 'tls_unsupported',
      probe: 'tls_write',
      count: 1,
      detail: '/usr/bin/curl',
    } as const;
    assert.deepEqual(lossNews(new Map([['filtered exec', 5]]), new Map(), [target], false), [
      target,
      { kind: 'filtered', probe: 'exec', count: 5 },
    ]);
  });

  it('sends nothing when no counter moved', function () {
    assert.deepEqual(lossNews(reported, reported, [], true), []);
  });
});
