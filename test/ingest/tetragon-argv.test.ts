import assert from 'node:assert/strict';
import { splitTetragonArguments } from '../../src/ingest/tetragon-argv.js';
import { tetragonJoin } from '../support/tetragon-join.js';

describe('splitTetragonArguments', function () {
  it('splits plain arguments on single spaces', function () {
    assert.deepEqual(splitTetragonArguments('train.py --epochs 3'), ['train.py', '--epochs', '3']);
    assert.deepEqual(splitTetragonArguments(''), []);
  });

  it('reads back arguments Tetragon quoted because they hold a space, first or not', function () {
    const cases = [
      ['-c', 'echo hello world'],
      ['echo hi', 'x'],
      ['a', 'b c', 'd e f', 'g'],
      ['-v', '-url', 'https://x:443', '-psk', 'Secure PSK!'],
      ['"quoted"', 'x'],
      ['x', 'a"b c'],
    ];
    for (const args of cases)
      assert.deepEqual(splitTetragonArguments(tetragonJoin(args)), args, tetragonJoin(args));
  });

  it('keeps empty arguments after the first, as Tetragon writes them (two spaces)', function () {
    assert.deepEqual(splitTetragonArguments('a  b'), ['a', '', 'b']);
    assert.deepEqual(splitTetragonArguments('a '), ['a', '']);
  });
});
