import assert from 'node:assert/strict';
import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { httpBodyText } from '../../src/security/signals/http-body.js';

const text = JSON.stringify({ usage: { input_tokens: 3, output_tokens: 4 }, pad: 'x'.repeat(4000) });

describe('HTTP bodies of TLS events (cost signals)', function () {
  it('decodes a body kept as text or base64, plain or gzip, deflate or br compressed', function () {
    const base64 = (bytes: Buffer): string => bytes.toString('base64');
    const cases: [string, Record<string, unknown>][] = [
      ['utf8', { body: text, body_encoding: 'utf8' }],
      ['base64', { body: base64(Buffer.from(text)), body_encoding: 'base64' }],
      [
        'gzip',
        { body: base64(gzipSync(text)), body_encoding: 'base64', headers: { 'content-encoding': 'gzip' } },
      ],
      [
        'deflate',
        {
          body: base64(deflateRawSync(text)),
          body_encoding: 'base64',
          headers: { 'Content-Encoding': 'deflate' },
        },
      ],
      [
        'br',
        {
          body: base64(brotliCompressSync(text)),
          body_encoding: 'base64',
          headers: { 'content-encoding': 'br' },
        },
      ],
    ];
    for (const [name, http] of cases) assert.deepEqual(httpBodyText(http), { text, cut: false }, name);
  });

  it('decodes a compressed body kept cut up to its cut, and says it is cut', function () {
    const whole = gzipSync(text);
    const http = {
      body: whole.subarray(0, whole.length - 20).toString('base64'),
      body_encoding: 'base64',
      body_truncated: true,
      headers: { 'content-encoding': 'gzip' },
    };
    const decoded = httpBodyText(http);
    assert.equal(decoded?.cut, true);
    const kept = decoded?.text ?? '';
    assert.ok(kept.length > 0 && text.startsWith(kept));
  });

  it('gives nothing for a dropped body, an unknown coding or bytes that do not decode', function () {
    assert.equal(httpBodyText({ body: null, body_dropped: true }), null);
    assert.equal(httpBodyText({ body: text, headers: { 'content-encoding': 'zstd' } }), null);
    assert.equal(
      httpBodyText({ body: 'AAAA', body_encoding: 'base64', headers: { 'content-encoding': 'gzip' } }),
      null,
    );
  });
});
