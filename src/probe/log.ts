import { redact } from '../redact.js';

export type LogLine = (fields: Record<string, unknown>) => void;

/** One structured line per failed probe, on stderr; text or JSON lines; always redacted. */
export function makeLogger(
  format: 'text' | 'json',
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): LogLine {
  return (fields) => {
    const f = { time: new Date().toISOString(), ...fields };
    if (format === 'json') write(redact(JSON.stringify(f)));
    else
      write(
        redact(
          Object.entries(f)
            .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"]/.test(v) ? JSON.stringify(v) : String(v)}`)
            .join(' '),
        ),
      );
  };
}
