import assert from 'node:assert/strict';
import { useDaemonFixture } from '../support/daemon.js';
import { learn, seedRun } from './baseline-support.js';

describe('baseline measures', function () {
  const daemons = useDaemonFixture();

  it('cuts each path to the first two directories holding it, resolved, and reads flags for writes', async function () {
    const daemon = await daemons.start();
    const read = (path: string, flags: unknown = 'O_RDONLY'): Record<string, unknown> => ({
      event_type: 'file_open',
      path,
      flags,
    });
    await seedRun(daemon, 'paths', '900', [
      read('/work/src/deep/er/a.ts'),
      read('/etc//passwd'),
      read('/vmlinuz'),
      read('/work/./a/../b/c/d.txt'),
      read('notes.txt'),
      read('src/lib/x/y.ts'),
      read('/work/out/log.txt', 'O_WRONLY|O_CREAT|O_APPEND'),
      read('/work/tmp/lock', 577),
      { event_type: 'file_rename', path: '/work/tmp/x', new_path: '/srv/www/x' },
      { event_type: 'execve', path: '' },
      { event_type: 'dns_query', query: 'API.Example.COM.' },
      { event_type: 'network_connect', dst_ip: '2001:db8::1', dst_port: 443 },
    ]);
    const learned = await learn(daemon, { name: 'paths', runs: ['paths'] });
    const profile = learned.body['profile'] as Record<string, { values: { value: string }[] }>;
    const values = (measure: string): string[] => profile[measure]!.values.map((entry) => entry.value).sort();
    assert.deepEqual(values('read_prefix'), ['.', '/', '/etc', '/work/b', '/work/src', 'src/lib']);
    // O_WRONLY|O_CREAT|O_APPEND as text, O_WRONLY|O_CREAT|O_TRUNC (577) as a number; a rename writes its new path
    assert.deepEqual(values('write_prefix'), ['/srv/www', '/work/out', '/work/tmp']);
    assert.deepEqual(values('binary'), []);
    assert.deepEqual(values('dns_name'), ['api.example.com']);
    assert.deepEqual(values('destination'), ['[2001:db8::1]:443']);
  });
});
