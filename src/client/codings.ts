import zlib from 'node:zlib';

/**
 * Content codings the client decodes (RFC 9110 §8.4.1), in the order it prefers them: zstd only where this Node
 * has it (22.15, 23.8 and later). What it sends as Accept-Encoding.
 */
type Decoder = (input: Buffer, opts: zlib.ZlibOptions, done: (err: Error | null, out: Buffer) => void) => void;
type SyncDecoder = (input: Buffer, opts: zlib.ZlibOptions) => Buffer;

const zstd = (zlib as unknown as { zstdDecompress?: Decoder }).zstdDecompress;
const zstdSync = (zlib as unknown as { zstdDecompressSync?: SyncDecoder }).zstdDecompressSync;

/** `deflate` is the zlib format by the RFC, but some servers send raw deflate: the header tells them apart. */
function zlibHeader(input: Buffer): boolean {
  const b0 = input[0] ?? 0;
  const b1 = input[1] ?? 0;
  return (b0 & 0x0f) === 8 && (b0 * 256 + b1) % 31 === 0;
}
const inflateAny: Decoder = (input, opts, done) =>
  (zlibHeader(input) ? zlib.inflate : zlib.inflateRaw)(input, opts, done);
const inflateAnySync: SyncDecoder = (input, opts) =>
  (zlibHeader(input) ? zlib.inflateSync : zlib.inflateRawSync)(input, opts);

const DECODERS: Record<string, { async: Decoder; sync: SyncDecoder }> = {
  gzip: { async: zlib.gunzip, sync: zlib.gunzipSync },
  'x-gzip': { async: zlib.gunzip, sync: zlib.gunzipSync },
  deflate: { async: inflateAny, sync: inflateAnySync },
  br: { async: zlib.brotliDecompress, sync: zlib.brotliDecompressSync },
  ...(zstd && zstdSync ? { zstd: { async: zstd, sync: zstdSync } } : {}),
};

/**
 * Bodies up to this many bytes are decoded at once, in this thread: an answer of a few hundred bytes decoded in the
 * thread pool cost 87 µs of CPU against 10 (gunzip; a run against a gzip provider decodes thousands). A body this
 * small expands to about a thousand times its size at most (a bomb), bounded by the cap all the same: a few
 * milliseconds. Larger ones go to the thread pool, leaving the event loop (and every other call's timing) free.
 */
const AT_ONCE = 4096;

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
    const decoder = DECODERS[coding];
    if (!decoder) throw new DecodeError(`content coding '${coding}' not supported`, 'content_coding');
    const input = out;
    const failed = (err: Error): DecodeError =>
      (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
        ? new DecodeError(`body longer than ${cap} bytes once decoded (${coding})`, 'body_too_large')
        : new DecodeError(`the body is not valid ${coding}: ${err.message}`, 'content_coding');
    if (input.length <= AT_ONCE) {
      try {
        out = decoder.sync(input, { maxOutputLength: cap });
      } catch (err) {
        throw failed(err as Error);
      }
      continue;
    }
    out = await new Promise<Buffer>((resolve, reject) => {
      decoder.async(input, { maxOutputLength: cap }, (err, decoded) => (err ? reject(failed(err)) : resolve(decoded)));
    });
  }
  return out;
}
