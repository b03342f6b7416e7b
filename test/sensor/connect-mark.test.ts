import assert from 'node:assert/strict';
import { endianness } from 'node:os';
import { markTargetOf } from '../../src/sensor/connect-mark.js';

/** What the kernel reads of 4 network-order bytes on this host (bpf_sock_addr's fields are so). */
const word = (bytes: number[]): number =>
  endianness() === 'LE' ? Buffer.from(bytes).readUInt32LE(0) : Buffer.from(bytes).readUInt32BE(0);

describe('markTargetOf', function () {
  it("gives an IPv4 listener's port and address in the kernel's words, and no IPv6", function () {
    assert.deepEqual(markTargetOf('127.0.0.1', 8574), {
      port: word([0x21, 0x7e, 0, 0]),
      ip4: word([127, 0, 0, 1]),
      ip6: [0, 0, 0, 0],
      listensIp6: false,
    });
    assert.equal(markTargetOf('0.0.0.0', 1).ip4, 0);
  });

  it('gives an IPv6 listener its 16 bytes, compressed forms and brackets read', function () {
    const target = markTargetOf('[::1]', 8574);
    assert.deepEqual(target.ip6, [0, 0, 0, word([0, 0, 0, 1])]);
    assert.equal(target.listensIp6, true);
    assert.deepEqual(markTargetOf('fd00:1::2', 1).ip6, [word([0xfd, 0, 0, 1]), 0, 0, word([0, 0, 0, 2])]);
    assert.deepEqual(markTargetOf('::', 1).ip6, [0, 0, 0, 0]);
  });

  it('takes a name as loopback on both families, so an IPv6 connect to it is refused, never left unmarked', function () {
    assert.deepEqual(markTargetOf('localhost', 80), {
      port: word([0, 80, 0, 0]),
      ip4: 0,
      ip6: [0, 0, 0, 0],
      listensIp6: true,
    });
  });
});
