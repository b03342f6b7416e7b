import assert from 'node:assert/strict';
import { joinPath } from '../../src/sensor/dir-path.js';

describe('joinPath (a relative path made absolute)', function () {
  it('joins a relative path to its directory and takes . and .. lexically', function () {
    const cases: [string, string, string][] = [
      ['/home/agent', 'notes.txt', '/home/agent/notes.txt'],
      ['/home/agent/.ssh', './id_rsa', '/home/agent/.ssh/id_rsa'],
      ['/home/agent/work', '../.aws/credentials', '/home/agent/.aws/credentials'],
      ['/', 'etc/shadow', '/etc/shadow'],
      ['/tmp', '../../../etc//shadow', '/etc/shadow'],
      ['/srv', '', '/srv'],
    ];
    for (const [directory, path, joined] of cases)
      assert.equal(joinPath(directory, path), joined, `${directory} + ${path}`);
  });
});
