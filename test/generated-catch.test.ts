import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadApiModel } from '../src/openapi/load.ts';
import { forms } from '../src/openapi/numbers.ts';
import { nearMissKeys } from '../src/plan/generators/cases.ts';
import type { SavedFailure } from '../src/report/failures.ts';
import { runInProcess } from '../src/run/in-process-runner.ts';
import { embeddedTarget } from '../src/simulator/embedded.ts';
import type { FaultName } from '../src/simulator/faults/index.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { NO_TARGET_ENV, runCli, writeTargetFlags } from './helpers.ts';

// The generated cases end to end (generators.test.ts holds how they are made): each class catches a fault the
// hand-written scenarios pass, and its saved failure replays through the CLI (h2h replay, and its curl line). The
// runs that find the faults go in process: the same planner, executor and saved failures as h2h contract's
// workers (a failing run through Playwright is mutation.test.ts's).

const api = loadApiModel();
const tmp = mkdtempSync(join(tmpdir(), 'h2h-generated-'));

describe('each class of generated cases catches a fault the hand-written scenarios pass', () => {
  const classes: [string, FaultName, string][] = [
    ['coverage', 'msisdn-07-accepted', 'INV-3'],
    ['near misses of the key', 'auth-key-any-case', 'AUTH-1'],
    ['history properties', 'q-whole-values', 'HIS-5'],
    ['INV-5 in flight', 'inflight-duplicate', 'INV-5'],
  ];
  for (const [name, fault, clause] of classes) {
    it(`${name}: ${fault} fails ${clause}; its saved failure replays as STILL FAILING, then FIXED`, async () => {
      const sim = await startSimulator({ fault: { name: fault } });
      try {
        const t = embeddedTarget(sim);
        const hand = await runInProcess(api, t, {
          maxInvites: t.maxInvites,
          settleMs: 1000,
          filter: (s) => !s.generated,
        });
        assert.ok(
          !hand.failedClauses.has(clause as never),
          `the hand-written scenarios pass ${fault}: ${[...hand.failedClauses].join(', ')}`,
        );

        const reports = join(tmp, fault);
        const found = await runInProcess(api, t, {
          maxInvites: t.maxInvites,
          settleMs: 1000,
          grep: clause,
          failuresDir: join(reports, 'failures'),
        });
        assert.ok(found.failedClauses.has(clause as never), `${clause} found: ${[...found.failedClauses].join(', ')}`);
        const files = readdirSync(join(reports, 'failures')).map((f) => join(reports, 'failures', f));
        const mine = files.filter((f) => {
          const saved = JSON.parse(readFileSync(f, 'utf8')) as SavedFailure;
          return saved.findings.some((l) => l.startsWith(clause));
        });
        assert.ok(mine.length > 0, `a saved failure of ${clause} in ${files.join(', ')}`);
        const saved = JSON.parse(readFileSync(mine[0] ?? '', 'utf8')) as SavedFailure;
        assert.equal(typeof saved.seed, 'number');
        assert.ok(!JSON.stringify(saved).includes(sim.apiKey), 'the key is a placeholder');

        if (saved.case) {
          // The curl line sends the same case again: the fault shows again.
          const env: NodeJS.ProcessEnv = { ...process.env, H2H_API_KEY: sim.apiKey };
          t.msisdns.forEach((m, i) => {
            env[`H2H_MSISDN_${i}_08`] = forms(m).f08;
            env[`H2H_MSISDN_${i}_62`] = forms(m).f62;
          });
          // A shell variable cannot hold a NUL: those near misses go again only by h2h replay.
          nearMissKeys(sim.apiKey).forEach((k, i) => {
            if (!k.value.includes('\0')) env[`H2H_NEAR_MISS_${i}`] = k.value;
          });
          // Not spawnSync: the simulator answers from this process's event loop.
          const curl = await promisify(execFile)('bash', ['-c', saved.curl], { env, encoding: 'utf8' });
          assert.match(curl.stdout, /"ok":true/, `${saved.curl}\n${curl.stdout}`);
        }
        const args = ['replay', mine[0] ?? '', ...writeTargetFlags(sim), '--reports-dir', reports];
        const still = await runCli(args, { env: NO_TARGET_ENV });
        assert.equal(still.code, 1, still.stdout + still.stderr);
        assert.match(still.stdout, /STILL FAILING/);
        sim.setFault(null);
        const fixed = await runCli(args, { env: NO_TARGET_ENV });
        assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
        assert.match(fixed.stdout, /^FIXED/m);
      } finally {
        await sim.close();
      }
    });
  }
});
