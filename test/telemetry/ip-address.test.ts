import assert from 'node:assert/strict';
import { isIpAddress, parseIpv4, parseIpv6 } from '../../src/telemetry/ip-address.js';

describe('ip-address', function () {
  describe('parseIpv4', function () {
    it('returns the address as a number when the text is a dotted quad', function () {
      assert.equal(parseIpv4('0.0.0.0'), 0);
      assert.equal(parseIpv4('10.0.0.5'), 0x0a000005);
      assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
      assert.equal(parseIpv4('x169.254.169.254', 1), 0xa9fea9fe);
    });

    it('returns -1 when the text is not exactly four decimal octets', function () {
      for (const text of [
        '',
        '1.2.3',
        '1.2.3.4.5',
        '256.0.0.1',
        '01.2.3.4',
        '1..2.3',
        '1.2.3.',
        '.1.2.3',
        '1.2.3.4 ',
        'a.b.c.d',
        '1.2.3.-4',
      ]) {
        assert.equal(parseIpv4(text), -1, text);
      }
    });
  });

  describe('parseIpv6', function () {
    it('expands :: and a dotted IPv4 tail when the literal uses them', function () {
      assert.deepEqual([...(parseIpv6('::') ?? [])], [0, 0, 0, 0, 0, 0, 0, 0]);
      assert.deepEqual([...(parseIpv6('::1') ?? [])], [0, 0, 0, 0, 0, 0, 0, 1]);
      assert.deepEqual([...(parseIpv6('fd00:ec2::254') ?? [])], [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
      assert.deepEqual([...(parseIpv6('1::') ?? [])], [1, 0, 0, 0, 0, 0, 0, 0]);
      assert.deepEqual([...(parseIpv6('::ffff:10.0.0.1') ?? [])], [0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]);
      assert.deepEqual([...(parseIpv6('1:2:3:4:5:6:7:8') ?? [])], [1, 2, 3, 4, 5, 6, 7, 8]);
    });

    it('returns undefined when the literal is malformed', function () {
      for (const text of [
        ':',
        ':1',
        '1:',
        '1::2::3',
        '1:2:3:4:5:6:7:8:9',
        '1:2:3:4:5:6:7:8::',
        '12345::',
        'g::1',
        '[::1]',
        'fe80::1%eth0',
        '1:2:3:4:5:6:7:1.2.3.4',
        '::1.2.3',
      ]) {
        assert.equal(parseIpv6(text), undefined, text);
      }
    });
  });

  describe('isIpAddress', function () {
    it('tells addresses from host names', function () {
      assert.ok(isIpAddress('169.254.169.254'));
      assert.ok(isIpAddress('2001:db8::1'));
      assert.ok(!isIpAddress('api.example.com'));
      assert.ok(!isIpAddress('example'));
      assert.ok(!isIpAddress(''));
    });
  });
});
