import type { ClauseId } from '../openapi/types.js';
import { auth1 } from './auth-1.js';
import { bal1 } from './bal-1.js';
import { bal2 } from './bal-2.js';
import { env1 } from './env-1.js';
import { env2 } from './env-2.js';
import { env3 } from './env-3.js';
import { env4 } from './env-4.js';
import { his1 } from './his-1.js';
import { his2 } from './his-2.js';
import { his3 } from './his-3.js';
import { his4 } from './his-4.js';
import { his5 } from './his-5.js';
import { inv1 } from './inv-1.js';
import { inv2 } from './inv-2.js';
import { inv3 } from './inv-3.js';
import { inv4 } from './inv-4.js';
import { inv5 } from './inv-5.js';
import { inv6 } from './inv-6.js';
import { trx1 } from './trx-1.js';
import { trx2 } from './trx-2.js';
import type { Check } from './types.js';

export type { Check, CheckContext, Evidence } from './types.js';

/** Every contract clause, by id: the whole catalogue in one place. */
export const CHECKS: Readonly<Record<ClauseId, Check>> = {
  'ENV-1': env1,
  'ENV-2': env2,
  'ENV-3': env3,
  'ENV-4': env4,
  'AUTH-1': auth1,
  'BAL-1': bal1,
  'BAL-2': bal2,
  'HIS-1': his1,
  'HIS-2': his2,
  'HIS-3': his3,
  'HIS-4': his4,
  'HIS-5': his5,
  'TRX-1': trx1,
  'TRX-2': trx2,
  'INV-1': inv1,
  'INV-2': inv2,
  'INV-3': inv3,
  'INV-4': inv4,
  'INV-5': inv5,
  'INV-6': inv6,
};
