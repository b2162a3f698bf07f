import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMANDS } from '../src/cli/h2h.ts';
import { runCli } from './helpers.ts';

describe('the h2h command line', () => {
  it('every command answers --help with its usage and each of its flags', async () => {
    assert.equal(COMMANDS.length, 8);
    for (const cmd of COMMANDS) {
      const r = await runCli([cmd.name, '--help']);
      assert.equal(r.code, 0, cmd.name);
      assert.match(r.stdout, new RegExp(`^usage: h2h ${cmd.name}`), cmd.name);
      for (const flag of Object.keys(cmd.options))
        assert.match(r.stdout, new RegExp(`--${flag}\\b`), `${cmd.name} --${flag}`);
    }
  });

  it('an unknown command exits 2 and lists the commands', async () => {
    const r = await runCli(['nocommand']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'nocommand'/);
    for (const cmd of COMMANDS) assert.match(r.stderr, new RegExp(`\\b${cmd.name}\\b`));
  });
});
