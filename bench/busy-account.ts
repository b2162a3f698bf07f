// A busy account: the simulator holds 100,000 history records and answers all of them when no `limit` is sent
// (about 11 MB); a read-only `h2h contract` runs against it. It must exit 0, and no process of the gate (the CLI,
// Playwright's runner, each worker) may peak over 400 MB of RSS, read at its exit (test/peak-rss.cjs).
// `npm run bench:busy`; BENCH_RECORDS changes the count. Exits 1 when either bound does not hold.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/shared/package-root.ts';
import { loadFixture } from '../src/simulator/fixtures.ts';
import { parseReading } from '../src/simulator/legal.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { BIN, machineLine } from './machine.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const LIMIT_MB = 400;
const preload = join(packageRoot(), 'test', 'peak-rss.cjs');

/** The fixture's demo account with RECORDS more records: 100 a day, 5,000 members over its managers. */
function busyFixture(): ReturnType<typeof loadFixture> {
  const fx = loadFixture();
  const managers = fx.managers.filter((m) => m.account === fx.suite.account);
  const start = Date.parse('2024-01-01');
  for (let i = 0; i < RECORDS; i++) {
    const m = managers[i % managers.length];
    const product = fx.products.find((p) => p.kind === m?.kind);
    if (!m || !product) throw new Error('the fixture has no manager and product of one kind');
    fx.history.push({
      trx_id: `BUSY${String(i).padStart(7, '0')}`,
      account: fx.suite.account,
      manager: m.number,
      member: `62813${String(i % 5000).padStart(8, '0')}`,
      product: product.code,
      date: new Date(start + Math.floor(i / 100) * 86_400_000).toISOString().slice(0, 10),
    });
  }
  return fx;
}

const sim = await startSimulator({ fixture: busyFixture(), reading: parseReading('default-limit=all') });
const dir = mkdtempSync(join(tmpdir(), 'h2h-busy-'));
try {
  const all = await fetch(`${sim.url}/api/history-transaksi`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: sim.apiKey }),
  });
  const bytes = (await all.arrayBuffer()).byteLength;
  const peaks = join(dir, 'peaks.txt');
  const t0 = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      [BIN, 'contract', '--base-url', sim.url, '--api-key', sim.apiKey, '--reports-dir', join(dir, 'reports')],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          H2H_TEST_PEAK_FILE: peaks,
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
        },
      },
    );
    child.on('close', resolve);
  });
  const seconds = (performance.now() - t0) / 1000;
  const rows = readFileSync(peaks, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .map(([, kb = '0', ...what]) => ({
      mb: Number(kb) / 1024,
      what: what.join(' ').replace(/.*\/(node_modules|dist)\//, ''),
    }))
    .sort((a, b) => b.mb - a.mb);
  console.log(machineLine());
  console.log(`${RECORDS} records; an answer without limit: ${(bytes / 1e6).toFixed(1)} MB`);
  console.log(`h2h contract (read-only) exit ${code} in ${seconds.toFixed(0)} s; peak RSS per process:`);
  for (const r of rows) console.log(`  ${r.mb.toFixed(0).padStart(5)} MB  ${r.what}`);
  const worst = rows[0]?.mb ?? Number.POSITIVE_INFINITY;
  if (code !== 0 || worst >= LIMIT_MB) {
    console.log(`FAILED: exit ${code}, largest peak ${worst.toFixed(0)} MB (bound ${LIMIT_MB} MB)`);
    process.exitCode = 1;
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
