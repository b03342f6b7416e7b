import assert from 'node:assert/strict';
import { detectFormat } from '../../src/ingest/detect-format.js';

describe('detectFormat', function () {
  it('picks tetragon when a Tetragon event kind is a top-level key', function () {
    for (const kind of ['process_exec', 'process_exit', 'process_kprobe', 'process_connect', 'process_lsm']) {
      assert.equal(detectFormat({ [kind]: {}, time: 't' }), 'tetragon', kind);
    }
  });

  it('picks falco when output_fields is an object', function () {
    assert.equal(detectFormat({ output_fields: { 'evt.type': 'execve' } }), 'falco');
  });

  it('picks native for anything else, including a non-object output_fields', function () {
    assert.equal(detectFormat({ event_type: 'execve' }), 'native');
    assert.equal(detectFormat({ output_fields: 'x' }), 'native');
    assert.equal(detectFormat({ output_fields: null }), 'native');
    assert.equal(detectFormat({}), 'native');
  });
});
