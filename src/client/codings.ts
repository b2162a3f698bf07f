import zlib from 'node:zlib';

/**
 * Content codings the client decodes (RFC 9110 §8.4.1), in the order it prefers them: zstd only where this Node
 * has it (22.15, 23.8 and later). What it sends as Accept-Encoding.
 */
type Decoder = (input: Buffer, opts: zlib.ZlibOptions, done: (err: Error | null, out: Buffer) => void) => void;

const zstd = (zlib as unknown as { zstdDecompress?: Decoder }).zstdDecompress;

/** `deflate` is the zlib format by the RFC, but some servers send raw deflate: the header tells them apart. */
const inflateAny: Decoder = (input, opts, done) => {
  const b0 = input[0] ?? 0;
  const b1 = input[1] ?? 0;
  const zlibHeader = (b0 & 0x0f) === 8 && (b0 * 256 + b1) % 31 === 0;
  (zlibHeader ? zlib.inflate : zlib.inflateRaw)(input, opts, done);
};

const DECODERS: Record<string, Decoder> = {
  gzip: zlib.gunzip,
  'x-gzip': zlib.gunzip,
  deflate: inflateAny,
  br: zlib.brotliDecompress,
  ...(zstd ? { zstd } : {}),
};

/** The Accept-Encoding the client sends: every coding it decodes. */
export const ACCEPT_ENCODING = ['gzip', 'deflate', 'br', ...(zstd ? ['zstd'] : [])].join(', ');

/** Why a body could not be decoded. */
export class DecodeError extends Error {
  constructor(
    message: string,
    readonly reason: 'content_coding' | 'body_too_large',
  ) {
    super(message);
  }
}

/**
 * Decodes a body sent with `Content-Encoding` (several codings are undone last first), never holding more than
 * `cap` decoded bytes: a small body that expands past it (a compression bomb) is a DecodeError `body_too_large`;
 * a coding this Node cannot decode, or a body that is not valid in its coding, is `content_coding`.
 */
export async function decodeBody(body: Buffer, contentEncoding: string | undefined, cap: number): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  let out = body;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode) throw new DecodeError(`content coding '${coding}' not supported`, 'content_coding');
    out = await new Promise<Buffer>((resolve, reject) => {
      decode(out, { maxOutputLength: cap }, (err, decoded) => {
        if (!err) return resolve(decoded);
        const tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        reject(
          tooLarge
            ? new DecodeError(`body longer than ${cap} bytes once decoded (${coding})`, 'body_too_large')
            : new DecodeError(`the body is not valid ${coding}: ${err.message}`, 'content_coding'),
        );
      });
    });
  }
  return out;
}
