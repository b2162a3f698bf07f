import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { BIN, contractConfigOf, NO_TARGET_ENV, probeConfigOf, ROOT, runCli, stopChild } from './helpers.ts';

// One rule for the key, in every command (src/shared/api-key.ts, docs/cli.md): --api-key or --api-key-file,
// whichever was given higher (flag, then H2H_API_KEY or H2H_API_KEY_FILE, then the config file's api_key_file),
// the key itself where both are given at one level; last, the config file's api_key_env. Was: h2h probe took
// H2H_API_KEY over --api-key-file, and read a config file's api_key_file from the working folder.

const GOOD = 'good-key-0123456789';
const WRONG = 'wrong-key-0123456789';
const tmp = mkdtempSync(join(tmpdir(), 'h2h-key-'));
const write = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};
const goodFile = write('good.key', `${GOOD}\n`);
const wrongFile = write('wrong.key', `${WRONG}\n`);
// A config file in its own folder: its api_key_file is read from there, wherever the command runs.
mkdirSync(join(tmp, 'conf'));
write('conf/good.key', `${GOOD}\n`);
const confGood = write('conf/good.yaml', 'api_key_file: good.key\n');
const confWrong = write('conf/wrong.yaml', `api_key_file: ${wrongFile}\n`);

interface Case {
  what: string;
  argv: string[];
  env?: NodeJS.ProcessEnv;
  key: string;
}

/** The same table for both commands: each row the key that must win. */
const CASES: Case[] = [
  { what: '--api-key over H2H_API_KEY', argv: ['--api-key', GOOD], env: { H2H_API_KEY: WRONG }, key: GOOD },
  {
    what: '--api-key-file over H2H_API_KEY (was: probe took the variable)',
    argv: ['--api-key-file', goodFile],
    env: { H2H_API_KEY: WRONG },
    key: GOOD,
  },
  {
    what: '--api-key-file over H2H_API_KEY_FILE',
    argv: ['--api-key-file', goodFile],
    env: { H2H_API_KEY_FILE: wrongFile },
    key: GOOD,
  },
  {
    what: 'H2H_API_KEY over the config file api_key_file',
    argv: ['--config', confWrong],
    env: { H2H_API_KEY: GOOD },
    key: GOOD,
  },
  {
    what: 'H2H_API_KEY_FILE over the config file api_key_file',
    argv: ['--config', confWrong],
    env: { H2H_API_KEY_FILE: goodFile },
    key: GOOD,
  },
  { what: 'one level, both flags: the key itself', argv: ['--api-key', WRONG, '--api-key-file', goodFile], key: WRONG },
  {
    what: 'one level, both variables: the key itself',
    argv: [],
    env: { H2H_API_KEY: WRONG, H2H_API_KEY_FILE: goodFile },
    key: WRONG,
  },
  {
    what: "the config file's api_key_file, read from the file's folder (was: probe read it from the working folder)",
    argv: ['--config', confGood],
    key: GOOD,
  },
];

describe('the key: one rule for h2h contract and h2h probe', () => {
  const target = ['--base-url', 'http://127.0.0.1:1'];
  for (const c of CASES) {
    it(`contract: ${c.what}`, () => {
      assert.equal(contractConfigOf([...target, ...c.argv], c.env).apiKey, c.key);
    });
    it(`probe: ${c.what}`, () => {
      assert.equal(probeConfigOf([...target, ...c.argv], c.env).targets[0]?.apiKey, c.key);
    });
  }

  it('contract: api_key_env of the config file comes last, after its api_key_file and every other way', () => {
    const both = write('conf/both.yaml', 'api_key_file: good.key\napi_key_env: H2H_OTHER_KEY\n');
    assert.equal(contractConfigOf([...target, '--config', both], { H2H_OTHER_KEY: WRONG }).apiKey, GOOD);
    const env = write('conf/env.yaml', 'api_key_env: H2H_OTHER_KEY\n');
    assert.equal(contractConfigOf([...target, '--config', env], { H2H_OTHER_KEY: GOOD }).apiKey, GOOD);
    assert.equal(
      contractConfigOf([...target, '--config', env], { H2H_OTHER_KEY: WRONG, H2H_API_KEY: GOOD }).apiKey,
      GOOD,
    );
    assert.throws(() => contractConfigOf([...target, '--config', env], {}), /api_key_env names H2H_OTHER_KEY/);
  });
});

describe('the key that reaches the target (the built CLI against the simulator)', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ apiKey: GOOD });
  });
  after(async () => {
    await sim?.close();
  });
  const env = (over: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...NO_TARGET_ENV, H2H_API_KEY_FILE: '', ...over });
  /** The simulator's answers since `from`: whether any key was taken, and whether any was refused as wrong. */
  const answers = (from: number): { taken: boolean; refused: boolean } => {
    const since = sim.log.slice(from).filter((e) => e.endpoint === 'saldo-user');
    return { taken: since.some((e) => e.ok === true), refused: since.some((e) => e.status === 'INVALID_API_KEY') };
  };

  it('probe --once: --api-key-file wins over H2H_API_KEY; --api-key over H2H_API_KEY', async () => {
    const probe = ['probe', '--once', '--base-url', sim.url, '--trx-id', 'TRX-20261102-0021'];
    let from = sim.log.length;
    const file = await runCli([...probe, '--api-key-file', goodFile], { env: env({ H2H_API_KEY: WRONG }) });
    assert.equal(file.code, 0, file.stdout + file.stderr);
    assert.deepEqual(answers(from), { taken: true, refused: false });
    from = sim.log.length;
    const flag = await runCli([...probe, '--api-key', WRONG], { env: env({ H2H_API_KEY: GOOD }) });
    assert.equal(flag.code, 1, flag.stdout + flag.stderr);
    assert.deepEqual(answers(from), { taken: false, refused: true });
  });

  it('contract: --api-key-file wins over H2H_API_KEY, both ways round', async () => {
    // The wrong key in the file: the preflight is refused, exit 2.
    let from = sim.log.length;
    const refused = await runCli(['contract', '--base-url', sim.url, '--api-key-file', wrongFile], {
      env: env({ H2H_API_KEY: GOOD }),
    });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /the API key was refused/);
    assert.deepEqual(answers(from), { taken: false, refused: true });
    // The good key in the file: the preflight passes; the run is stopped as soon as the simulator took the key.
    from = sim.log.length;
    const child = spawn(process.execPath, [BIN, 'contract', '--base-url', sim.url, '--api-key-file', goodFile], {
      cwd: ROOT,
      env: { ...process.env, ...env({ H2H_API_KEY: WRONG, H2H_REPORTS_DIR: join(tmp, 'reports') }) },
      stdio: 'ignore',
    });
    try {
      for (let i = 0; i < 300 && !answers(from).taken && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(answers(from), { taken: true, refused: false });
    } finally {
      await stopChild(child);
    }
  });
});
