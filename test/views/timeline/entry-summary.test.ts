import assert from 'node:assert/strict';
import { eventSummary } from '../../../src/views/timeline/entry-summary.js';

describe('the one-line summary of an event', function () {
  it('names the path an open acted on, and a rename as old -> new', function () {
    assert.equal(
      eventSummary('file_open', 'cat', 7, { path: '/etc/hosts', result: 3 }),
      'cat[7] file_open /etc/hosts',
    );
    assert.equal(
      eventSummary('file_rename', 'mv', 8, { path: '/tmp/a', new_path: '/tmp/b' }),
      'mv[8] file_rename /tmp/a -> /tmp/b',
    );
  });

  it('says the sensor could not read the path, rather than showing a file event of nothing', function () {
    // as the sensor decodes a failed open whose path was in memory it could not read (decode-file.ts)
    const attrs = {
      path: null,
      path_unreadable: true,
      truncated: true,
      result: -2,
      failed: true,
      error: 'ENOENT',
    };
    assert.equal(
      eventSummary('file_open', 'bash', 990, attrs),
      'bash[990] file_open (path not readable by the sensor)',
    );
    assert.equal(
      eventSummary('file_write', 'bash', 990, { path: null, path_unreadable: true }),
      'bash[990] file_write (path not readable by the sensor)',
    );
  });

  it('keeps a line of an event with nothing to name to its actor and type', function () {
    assert.equal(eventSummary('process_exit', null, null, {}), '?[?] process_exit');
  });
});
