import { BODY_TEXT_KEPT, type Exchange } from '../openapi/types.js';
import { readJson } from '../shared/json.js';
import { DecodeError, decodeBody } from './codings.js';

/** Bodies longer than this share the records they repeat with answers read before (readJson's `share`). */
const SHARE_FROM = 256 * 1024;

/** What one chunk did to the body: it goes on, it completed the declared length, or it passed the cap. */
export type Taken = 'more' | 'whole' | 'cut';

/** The body's part of an exchange, in the exchange's order of keys. */
export type BodyFields = Pick<Exchange, 'bodyText' | 'bodyLength' | 'body' | 'bodyProblem'>;

/**
 * The body of one answer, kept as it arrives up to the cap (the rest cut), then decoded within the cap
 * (codings.ts) and read by the one bounded reader. Times are none of its business: the call takes them.
 */
export class BodyReader {
  private readonly pieces: Buffer[] = [];
  private size = 0;
  /** True when the body was longer than the cap and was cut. */
  truncated = false;

  /** `declared`: the Content-Length, NaN without one. */
  constructor(
    private readonly cap: number,
    private readonly declared: number,
  ) {}

  /** Keeps one chunk, or its part within the cap; a chunk after the cut is dropped. */
  take(chunk: Buffer): Taken | undefined {
    if (this.truncated) return undefined;
    const room = this.cap - this.size;
    if (chunk.length > room) {
      this.pieces.push(chunk.subarray(0, room));
      this.size = this.cap;
      this.truncated = true;
      return 'cut';
    }
    this.pieces.push(chunk);
    this.size += chunk.length;
    return this.size === this.declared ? 'whole' : 'more';
  }

  /**
   * The body read: its text (kept whole only when short), parsed unless it was cut or could not be decoded (a
   * byte-order mark dropped, a body nested past the depth the toolkit reads refused before it is parsed, as ENV-1
   * says, never a crash of whoever judges it), and why it could not be decoded.
   */
  async read(contentEncoding: string | undefined): Promise<{ fields: BodyFields; undecodable?: DecodeError }> {
    const { text, bodyText, undecodable } = await this.decoded(contentEncoding);
    const read = !this.truncated && !undecodable ? readJson(text, { share: text.length > SHARE_FROM }) : undefined;
    const bodyProblem = read?.problem !== undefined && read.kind === 'depth' ? read.problem : undefined;
    const fields: BodyFields = {
      bodyText,
      ...(bodyText.length < text.length ? { bodyLength: text.length } : {}),
      body: read?.value,
      ...(bodyProblem ? { bodyProblem } : {}),
    };
    return undecodable ? { fields, undecodable } : { fields };
  }

  /** The pieces as one text, decoded; its beginning as a string of its own when it is long. */
  private async decoded(
    contentEncoding: string | undefined,
  ): Promise<{ text: string; bodyText: string; undecodable?: DecodeError }> {
    let raw: Buffer = Buffer.concat(this.pieces);
    // The pieces are copied: let them go before the body is decoded and parsed (a busy account's history is
    // megabytes, and every copy held at once counts).
    this.pieces.length = 0;
    let undecodable: DecodeError | undefined;
    if (!this.truncated && contentEncoding) {
      try {
        raw = await decodeBody(raw, contentEncoding, this.cap);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        undecodable = err;
        raw = Buffer.alloc(0);
      }
    }
    const text = raw.toString('utf8');
    // Kept whole only when short: a busy account's history is megabytes, and its parsed body is what is read. The
    // beginning is a string of its own (a slice would hold the whole text in memory). The bytes go with this
    // function's return, before the text is parsed.
    const bodyText = raw.length > BODY_TEXT_KEPT ? raw.subarray(0, BODY_TEXT_KEPT).toString('utf8') : text;
    return undecodable ? { text, bodyText, undecodable } : { text, bodyText };
  }
}
