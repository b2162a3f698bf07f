import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { apiModelFromText, DEFAULT_DOCUMENT_PATH, loadApiModel } from '../src/openapi/load.ts';
import {
  learnPhones,
  maskPhone,
  redact,
  redactionNames,
  redactValue,
  registerPhone,
  registerSecret,
  useDocument,
} from '../src/redact.ts';

describe('redaction', () => {
  it('hides a registered key in raw, URL-encoded and JSON-escaped form', () => {
    const key = 'S3cr3t/Key+with"quote';
    registerSecret(key);
    const text = `raw ${key} url ${encodeURIComponent(key)} form ${new URLSearchParams({ k: key }).toString()} json ${JSON.stringify(key)}`;
    const out = redact(text);
    assert.ok(!out.includes('S3cr3t'), out);
  });

  it('hides the userinfo of any URL by structure, and learns a key seen under a secret name', () => {
    assert.equal(
      redact('target unreachable: https://ops:pa55@h2h.example:8443/api/x (and ftp://u@files)'),
      'target unreachable: https://***@h2h.example:8443/api/x (and ftp://***@files)',
    );
    assert.equal(redact('mail me at ops@example.com'), 'mail me at ops@example.com', 'not a URL: left alone');
    redactValue({ request: { params: { key: 778899001122 } } });
    assert.equal(redact('saldo 778899001122 echoed'), 'saldo *** echoed', 'a numeric key learned from its field');
  });

  it('hides the key by every name the document gives it, in query strings and JSON, string or number', () => {
    assert.deepEqual([...redactionNames().secret].sort(), ['api_key', 'key']);
    assert.equal(redact('http://h/api/saldo-user?key=abc&limit=1'), 'http://h/api/saldo-user?key=***&limit=1');
    assert.equal(redact('GET /x?limit=1&api_key=zzz'), 'GET /x?limit=1&api_key=***');
    assert.equal(redact('api_key=zzz&limit=1'), 'api_key=***&limit=1');
    assert.equal(redact('{"api_key":"zzz","q":"a"}'), '{"api_key":"***","q":"a"}');
    assert.equal(redact('{"api_key": 123456789, "q":"a"}'), '{"api_key": "***", "q":"a"}');
    assert.deepEqual(redactValue({ key: 'zzz', nested: { api_key: 98765 }, list: ['?key=1'] }), {
      key: '***',
      nested: { api_key: '***' },
      list: ['?key=***'],
    });
  });

  it('masks numbers by field, learns them there, and leaves a balance or an ID that begins with 62 alone', () => {
    assert.equal(maskPhone('6281234567890'), '6281******890');
    const answer = {
      ok: true,
      status: 'SUCCESS',
      saldo: 6281234500,
      message: 'Member 6287700011122 added to manager 6281100000777, slot 3',
      detail: { manager: '6281100000777', member: '6287700011122', slot: '3' },
      data: [{ trx_id: '6282222222222', manager_number: '081100000777', member_number: '6287700011122' }],
    };
    const shown = redactValue(answer);
    assert.equal(shown.saldo, 6281234500, 'a balance is not a phone number');
    assert.equal(shown.data[0]?.trx_id, '6282222222222', 'an ID is not a phone number');
    assert.equal(shown.detail.member, '6287******122');
    assert.equal(shown.data[0]?.manager_number, '0811*****777');
    assert.equal(
      shown.message,
      'Member 6287******122 added to manager 6281******777, slot 3',
      'learned from its fields',
    );
    assert.equal(redact('seed 625171115, saldo 6281234500'), 'seed 625171115, saldo 6281234500');
    assert.equal(
      redact('{"msisdn":"0899000111222","nomor":"0899000111333"}'),
      '{"msisdn":"0899******222","nomor":"0899******333"}',
    );
    registerPhone('081299955501');
    assert.equal(redact('to 6281299955501 and 081299955501.'), 'to 6281******501 and 0812*****501.');
    learnPhones({ member_number: '6285500011199' });
    assert.equal(redact('x 085500011199 y'), 'x 0855*****199 y');
    // A history that shows numbers in the international form teaches them too.
    learnPhones({ manager_number: '+6287700022288' });
    assert.equal(redact('m 087700022288 +6287700022288'), 'm 0877*****288 +6287******288');
  });

  it('a value cut inside its string never takes the lines after it (a reading file, one entry a line)', () => {
    // An evidence line cut at 600 characters inside a number's string, then the next entries of the file.
    const text = [
      '    answer: HTTP 200 {"data":[{"member_number":"0878****…',
      '  refusal-http:',
      '    request: GET /api/saldo-user?api_key=x',
      '    answer: HTTP 401 {"ok":false,"status":"invalid_key","api_key":"k-123456"}',
    ].join('\n');
    const out = redact(text).split('\n');
    assert.equal(out.length, 4, 'no line taken');
    assert.equal(out[1], '  refusal-http:');
    assert.equal(out[2], '    request: GET /api/saldo-user?api_key=***');
    assert.equal(out[3], '    answer: HTTP 401 {"ok":false,"status":"invalid_key","api_key":"***"}');
  });

  it('a new alias of api_key in a copy of openapi.yaml is hidden without a change of code', () => {
    const text = readFileSync(DEFAULT_DOCUMENT_PATH, 'utf8').replace(
      /( {2}ApiKey:\n(?:.*\n)*? {6}x-aliases: )\[key\]/,
      '$1[key, token]',
    );
    assert.notEqual(text, readFileSync(DEFAULT_DOCUMENT_PATH, 'utf8'), 'the copy adds an alias');
    try {
      useDocument(apiModelFromText(text, 'copy of openapi.yaml'));
      assert.ok(redactionNames().secret.has('token'));
      assert.equal(redact('GET /api/saldo-user?token=s3cret-value'), 'GET /api/saldo-user?token=***');
      assert.deepEqual(redactValue({ token: 's3cret-value' }), { token: '***' });
    } finally {
      useDocument(loadApiModel());
    }
    assert.equal(redact('?token=visible'), '?token=visible');
  });
});
