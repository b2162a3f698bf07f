import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadApiModel } from '../src/openapi/load.ts';
import type { Exchange } from '../src/openapi/types.ts';
import { answerPoints, READING_WINDOW, ReadingWindow, roundPoints } from '../src/reading/probe-points.ts';

// The provider reading the probe exports (h2h_provider_reading_info): what one answer shows, what a round shows,
// and the window that keeps a per-request shuffle from flapping while a real change still shows.

const api = loadApiModel();

function history(dates: string[], forms: [string, string][] = []): Exchange {
  const data = dates.map((date, i) => ({
    trx_id: `T${i}`,
    date,
    manager_number: forms[i]?.[0] ?? '6281200000001',
    member_number: forms[i]?.[1] ?? '6281300000001',
  }));
  const body = { ok: true, status: 'SUCCESS', data };
  return {
    endpoint: 'history-transaksi',
    method: 'POST',
    params: { api_key: 'k', limit: 5 },
    url: 'http://127.0.0.1/api/history-transaksi',
    httpStatus: 200,
    contentType: 'application/json; charset=utf-8',
    bodyText: JSON.stringify(body),
    body,
    durationMs: 1,
  };
}

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')} 10:00:00`;

describe("the provider reading the probe's answers show", () => {
  it("a history page shows its order only with four distinct dates; number forms by the form most records show, as the gate's file does", () => {
    assert.equal(answerPoints(api, history([day(3), day(2), day(1)]), 'k', false).order, undefined);
    assert.equal(answerPoints(api, history([day(4), day(3), day(2), day(1)]), 'k', false).order, 'newest');
    assert.equal(answerPoints(api, history([day(1), day(2), day(3), day(4)]), 'k', false).order, 'oldest');
    assert.equal(answerPoints(api, history([day(2), day(4), day(1), day(3)]), 'k', false).order, 'shuffled');
    const forms = answerPoints(
      api,
      history(
        [day(3), day(2), day(1)],
        [
          ['6281200000001', '081300000001'],
          ['081200000001', '081300000002'],
          ['081200000002', '6281300000003'],
        ],
      ),
      'k',
      true,
    );
    // Two of three managers in 08-form, two of three members: the forms most records show.
    assert.equal(forms['manager-form'], '08');
    assert.equal(forms['member-form'], '08');
    assert.equal(forms.extra, 'everywhere');
    assert.equal(forms['content-type'], 'charset');
  });

  it('a round whose answers disagree on a point shows what most show (the first among equals); no word of its own', () => {
    assert.deepEqual(
      roundPoints([
        { 'content-type': 'plain', saldo: 'small' },
        { 'content-type': 'charset' },
        { 'content-type': 'charset' },
        undefined,
      ]),
      { 'content-type': 'charset', saldo: 'small' },
    );
    assert.deepEqual(roundPoints([{ 'content-type': 'plain' }, { 'content-type': 'charset' }]), {
      'content-type': 'plain',
    });
  });

  it('the window: a shuffle that looks sorted in 4 rounds of 10 does not flap; a real change shows at round 6', () => {
    const w = new ReadingWindow();
    assert.deepEqual(w.observe('p', { order: 'shuffled' }), { order: 'shuffled' });
    const flaps = ['newest', 'shuffled', 'oldest', 'newest', 'shuffled', 'newest', 'shuffled', 'shuffled', 'shuffled'];
    for (const order of flaps) assert.equal(w.observe('p', { order }).order, 'shuffled', 'no flap');
    for (let round = 1; round <= 6; round++) {
      const shown = w.observe('p', { order: 'oldest' }).order;
      assert.equal(shown, round < 6 ? 'shuffled' : 'oldest', `round ${round} of the change`);
    }
    assert.equal(READING_WINDOW, 10);
    assert.deepEqual(w.of('other'), {}, 'a target with no round shows nothing');
    assert.equal(w.observe('p', {}).order, 'oldest', 'a round that shows nothing keeps the value');
  });
});
