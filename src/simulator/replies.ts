import type http from 'node:http';
import zlib from 'node:zlib';
import type { ApiModel } from '../openapi/load.js';
import { type Endpoint, isEndpoint, type Params } from '../openapi/types.js';
import type { RefusalKind } from '../reading/index.js';
import type { Answer } from './answer.js';
import type { ShapedValue } from './learned-checks.js';
import { contentTypeOf, type Reading } from './legal.js';
import { presentAnswer } from './present.js';
import type { LogEntry } from './request-log.js';
import { OWN_SOURCE, type ServedVocabulary } from './vocabulary.js';

/** Answers a request: shapes the answer, logs it, and sends it (a fault's rewrite last). */
export type Replier = (
  answer: Answer,
  rewrite?: (body: Record<string, unknown>) => void,
  sent?: Params,
  kind?: RefusalKind,
  value?: ShapedValue,
) => void;

/**
 * How the simulator's answers go out: worded and shaped by the reading (by the learned provider where it has a
 * word), a fault's rewrite last, their log entry filled in, encoded under the `content-coding` knob, and sent.
 */
export class SimReplies {
  /**
   * The invites carried out here, by trx_id, with what they sent: their history records take the provider's own
   * invites' fields, and carry back what those carried back (the name an invite was sent with, say).
   */
  private readonly own = new Map<string, Params>();
  private readonly contentType: string;

  constructor(
    private readonly api: ApiModel,
    private readonly reading: Reading,
    private readonly learned: ServedVocabulary | undefined,
  ) {
    this.contentType = contentTypeOf(reading);
  }

  /** An invite carried out here, with what it sent (its history records are the provider's own invites'). */
  carriedOut(trxId: string, params: Params): void {
    this.own.set(trxId, params);
  }

  /** How one request is answered: the answer shaped, its log entry filled in, and sent. */
  replier(req: http.IncomingMessage, res: http.ServerResponse, entry: LogEntry, endpoint: string | undefined): Replier {
    return (answer, rewrite, sent = {}, kind, value) => {
      const at = endpoint && isEndpoint(endpoint) ? endpoint : undefined;
      const served = this.learned
        ? this.serveLearned(this.learned, answer, at, sent, kind, value)
        : { answer: presentAnswer(answer, at, this.reading), source: OWN_SOURCE };
      const shaped = { ...served.answer, headers: { ...served.answer.headers, 'h2h-source': served.source } };
      // A fault's rewrite comes last: the reading shapes the answer, the fault breaks it.
      rewrite?.(shaped.body);
      entry.source = served.source;
      entry.httpStatus = shaped.http;
      entry.ok = shaped.body.ok as boolean;
      entry.status = shaped.body.status as string;
      this.send(res, shaped, req.headers['accept-encoding']);
    };
  }

  send(res: http.ServerResponse, answer: Answer, acceptEncoding?: string): void {
    if (res.destroyed || res.headersSent) return;
    const text = Buffer.from(JSON.stringify(answer.body));
    const coding = codingFor(this.reading, acceptEncoding);
    const bytes = coding ? ENCODE[coding](text) : text;
    res.writeHead(answer.http, {
      'content-type': this.contentType,
      'content-length': bytes.length,
      ...(coding ? { 'content-encoding': coding, vary: 'Accept-Encoding' } : {}),
      ...answer.headers,
    });
    res.end(bytes);
  }

  /**
   * An answer of the simulator's rules as the learned provider words and shapes it (its own where none is learned),
   * with where each part came from (the `h2h-source` header, sourceOf).
   */
  private serveLearned(
    l: ServedVocabulary,
    answer: Answer,
    at: Endpoint | undefined,
    sent: Params,
    kind?: RefusalKind,
    value?: ShapedValue,
  ): { answer: Answer; source: string } {
    const { api, reading } = this;
    if (answer.body.ok === false) {
      const k = kind ?? l.kindOf(answer, sent);
      // The provider's word for the kind (for a value of a shape it words apart, that shape's).
      const theirs = k ? l.refusal(k, at, value) : undefined;
      if (theirs)
        return {
          answer: { ...theirs.answer, ...(answer.headers ? { headers: answer.headers } : {}) },
          source: l.sourceOf({ refusal: k, entry: theirs.entry }),
        };
      return { answer: presentAnswer(answer, at, reading), source: l.sourceOf(k ? { refusal: k } : {}) };
    }
    // The simulator's own undocumented fields give way to the provider's.
    const plain = presentAnswer(answer, at, { ...reading, extra: 'none' });
    return at
      ? { answer: l.success(api, plain, at, this.own, sent).answer, source: l.sourceOf({ success: at }) }
      : { answer: plain, source: l.sourceOf({}) };
  }
}

/**
 * Each coding as a server applies it on the fly: Brotli at quality 4, as servers do for dynamic answers (Node's
 * default, 11, is for static files: 5 ms of CPU for a 2 KB answer here, against 0.06 ms at 4); gzip and deflate
 * with zlib's smallest state (memLevel 1), which an answer of a few hundred bytes does not fill (44 µs of CPU
 * for one of 650 bytes at the default, 20 at 1).
 */
const DEFLATE: zlib.ZlibOptions = { memLevel: 1 };
const ENCODE: Record<'gzip' | 'deflate' | 'br', (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b, DEFLATE),
  deflate: (b) => zlib.deflateSync(b, DEFLATE),
  br: (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }),
};

/**
 * The content coding of an answer under the `content-coding` knob: the reading's, when the request sent no
 * Accept-Encoding (any coding is acceptable then) or lists it (or `*`) without q=0; else none.
 */
export function codingFor(r: Reading, acceptEncoding: string | undefined): 'gzip' | 'deflate' | 'br' | undefined {
  const coding = r['content-coding'];
  if (coding !== 'gzip' && coding !== 'deflate' && coding !== 'br') return undefined;
  if (acceptEncoding === undefined) return coding;
  const listed = acceptEncoding.split(',').map((item) => {
    const [name = '', ...params] = item.trim().toLowerCase().split(';');
    return { name: name.trim(), zero: params.some((q) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(q)) };
  });
  return listed.some((c) => (c.name === coding || c.name === '*') && !c.zero) ? coding : undefined;
}
