import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskPhone, redact, redactValue, registerSecret } from '../src/redact.ts';

describe('redaction', () => {
  it('hides a registered key in raw, URL-encoded and JSON-escaped form', () => {
    const key = 'S3cr3t/Key+with"quote';
    registerSecret(key);
    const text = `raw ${key} url ${encodeURIComponent(key)} form ${new URLSearchParams({ k: key }).toString()} json ${JSON.stringify(key)}`;
    const out = redact(text);
    assert.ok(!out.includes('S3cr3t'), out);
  });

  it('hides api_key and key in query strings and JSON, registered or not', () => {
    assert.equal(redact('http://h/api/saldo-user?key=abc&limit=1'), 'http://h/api/saldo-user?key=***&limit=1');
    assert.equal(redact('GET /x?limit=1&api_key=zzz'), 'GET /x?limit=1&api_key=***');
    assert.equal(redact('{"api_key":"zzz","q":"a"}'), '{"api_key":"***","q":"a"}');
    assert.deepEqual(redactValue({ key: 'zzz', nested: { api_key: 'yyy' }, list: ['?key=1'] }), {
      key: '***',
      nested: { api_key: '***' },
      list: ['?key=***'],
    });
  });

  it('masks phone numbers in the middle, in both forms, and leaves other numbers alone', () => {
    assert.equal(maskPhone('6281234567890'), '6281******890');
    assert.equal(
      redact('member 081234567890 manager 6281100000001 saldo 150000 trx TRX-20261122-0001'),
      'member 0812*****890 manager 6281******001 saldo 150000 trx TRX-20261122-0001',
    );
  });
});
