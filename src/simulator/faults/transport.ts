import type { Fault } from './fault.js';

/** Transport faults: they break no clause but the wire itself (probe tests, and the gate's money rules). */
export const TRANSPORT_FAULTS = [
  { name: 'latency', description: 'every API answer is delayed by `ms` (default 1500) milliseconds' },
  { name: 'http-500-html', description: 'every API answer is HTTP 500 with an HTML body' },
  { name: 'reset', description: 'the connection is reset before any answer' },
  { name: 'hang', description: 'the request is accepted and never answered' },
  { name: 'invalid-json', description: 'the body is cut-off JSON with content-type application/json' },
  { name: 'oversized-body', description: 'a 4 MiB JSON body' },
  { name: 'slow-drip', description: 'the body is sent one byte every `ms` (default 200) milliseconds' },
  { name: 'reset-first', description: 'the first copy of each distinct request is reset; its repeat is answered' },
  {
    name: 'invite-hang',
    description: 'invite-member is carried out (and charged) but never answered; other endpoints answer',
  },
  {
    name: 'outage',
    description:
      'a maintenance window: the 6th invite carried out is answered 503 with Retry-After: 1, and so is every request for `ms` (default 3000) milliseconds after it',
  },
  {
    name: 'gzip-bomb',
    description: 'every API answer is a gzip body of 10 KiB that decodes to 10 MiB (Content-Encoding: gzip)',
  },
] as const satisfies readonly Fault[];
