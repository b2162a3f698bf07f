import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { freePort, ROOT, samples } from './helpers.ts';

// The probe's image (Containerfile), built here from the base scripts/container-base.sh makes (no registry is
// reachable), then run as production runs it: read-only root filesystem, uid 65532, its config and key mounted,
// against a simulator on this host. podman is run the way it works on these machines: runc (crun refuses the
// hybrid cgroups), cgroupfs, and ulimits within the hard limits (the defaults exceed them).

const PODMAN = ['podman', '--runtime', 'runc', '--cgroup-manager=cgroupfs'];
const LIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=1000:1000'];
const BASE = 'localhost/h2h-node24-base:latest';
const IMAGE = 'localhost/h2h-contract:test';
const NAME = `h2h-probe-test-${process.pid}`;
const KEY = `ctr-key-${randomBytes(9).toString('hex')}`;
const UID = 65532;

interface Ran {
  code: number | null;
  out: string;
  err: string;
  ms: number;
}

/** Runs a command to its end, or kills it at the deadline; never throws (a failed spawn is in `err`). */
function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let done = false;
    const finish = (code: number | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ code, out, err, ms: performance.now() - t0 });
    };
    const timer = setTimeout(() => {
      err += `\n(${cmd} ${args.join(' ')} killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => {
      err += String(e);
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

const podman = (args: string[], timeoutMs?: number): Promise<Ran> =>
  run(PODMAN[0] ?? 'podman', [...PODMAN.slice(1), ...args], timeoutMs ? { timeoutMs } : {});

/** Why no container can run here, or undefined when podman can. */
function engineProblem(): string | undefined {
  const version = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (version.error) return `podman is not installed (${version.error.message}): apt-get install -y podman runc`;
  const runc = spawnSync('runc', ['--version'], { encoding: 'utf8' });
  if (runc.error)
    return `runc is not installed (${runc.error.message}), which podman needs here: apt-get install -y runc`;
  const info = spawnSync(PODMAN[0] ?? 'podman', [...PODMAN.slice(1), 'info'], { encoding: 'utf8', timeout: 30_000 });
  if (info.status !== 0) {
    const why = `${info.stderr ?? ''}${info.error ? String(info.error) : ''}`.trim().split('\n').at(-1);
    return `${PODMAN.join(' ')} info failed (exit ${info.status}): ${why}`;
  }
  return undefined;
}

/** Text fit to print: the key replaced, wherever it shows. */
const redacted = (s: string): string => s.replaceAll(KEY, '<the key>');

describe('the probe image: built from the Containerfile, run by podman read-only as uid 65532', () => {
  const skip = engineProblem();
  let sim: Simulator | undefined;
  let dir: string | undefined;
  let port = 0;
  let started = false;
  const timings: string[] = [];

  const logs = async (): Promise<string> => {
    const r = await podman(['logs', NAME]);
    return `${r.out}${r.err}`;
  };
  const state = async (): Promise<string> =>
    (await podman(['inspect', '--format', '{{.State.Status}} exit {{.State.ExitCode}}', NAME])).out.trim();

  before(
    async () => {
      if (skip) return;
      // The base: made once, then reused (--if-missing), since its inputs only change with a new Node 24 release.
      const base = await run('bash', [join(ROOT, 'scripts', 'container-base.sh'), '--if-missing', BASE], {
        env: { PODMAN: PODMAN.join(' ') },
        timeoutMs: 120_000,
      });
      assert.equal(base.code, 0, `scripts/container-base.sh failed:\n${base.out}${base.err}`);
      timings.push(`base image: ${/exists already/.test(base.out) ? 'reused' : 'built'} in ${secs(base.ms)}`);

      const previous = (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE])).out.trim();
      const build = await podman(
        [
          'build',
          '--format',
          'docker', // keeps HEALTHCHECK, which the OCI format has no field for
          '--network',
          'host',
          ...LIMITS,
          '--build-arg',
          `BASE_IMAGE=${BASE}`,
          '-t',
          IMAGE,
          '-f',
          'Containerfile',
          '.',
        ],
        // A cold build (a fresh machine, or a changed package.json) installs the production dependencies, on a
        // machine that runs four test files beside it (one that also installed the development ones and compiled
        // took 150 s under load).
        300_000,
      );
      assert.equal(build.code, 0, `podman build failed:\n${build.out.slice(-4000)}\n${build.err.slice(-4000)}`);
      const installs = [...build.out.matchAll(/added (\d+) packages in (\S+)/g)].map((m) => `${m[1]} in ${m[2]}`);
      timings.push(
        `image build: ${secs(build.ms)} (npm ci --omit=dev: ${installs.length ? installs.join(', ') : 'its layer reused'})`,
      );
      // The image this build replaced, now untagged, goes (its layers that the new one shares stay).
      const now = (await podman(['image', 'inspect', '--format', '{{.Id}}', IMAGE])).out.trim();
      if (previous && previous !== now) await podman(['rmi', previous]);

      sim = await startSimulator({ apiKey: KEY });
      port = await freePort();
      // The config and key mounted as /etc/h2h, as the Kubernetes manifest does; the key file is the probe user's.
      dir = mkdtempSync(join(tmpdir(), 'h2h-container-'));
      chmodSync(dir, 0o755);
      writeFileSync(
        join(dir, 'probe.yaml'),
        [
          "schedule: '*/2 * * * * *'",
          'timeout: 1s',
          'targets:',
          `  - {name: ctr, base_url: '${sim.url}', api_key_file: api-key}`,
          '',
        ].join('\n'),
      );
      chmodSync(join(dir, 'probe.yaml'), 0o644);
      writeFileSync(join(dir, 'api-key'), `${KEY}\n`);
      if (process.getuid?.() === 0) {
        chownSync(join(dir, 'api-key'), UID, UID);
        chmodSync(join(dir, 'api-key'), 0o400);
      } else chmodSync(join(dir, 'api-key'), 0o444);

      const t0 = performance.now();
      const ran = await podman([
        'run',
        '--detach',
        '--name',
        NAME,
        '--network',
        'host',
        ...LIMITS,
        '--read-only',
        '--user',
        String(UID),
        // No timer for the image's HEALTHCHECK (podman sets it with systemd, absent here); the test runs it itself.
        '--health-interval',
        'disable',
        '--env',
        `H2H_HEALTHCHECK_URL=http://127.0.0.1:${port}/healthz`,
        '--volume',
        `${dir}:/etc/h2h:ro`,
        IMAGE,
        'probe',
        '--config',
        '/etc/h2h/probe.yaml',
        '--listen',
        `127.0.0.1:${port}`,
      ]);
      started = true;
      assert.equal(ran.code, 0, `podman run failed:\n${redacted(ran.out + ran.err)}`);
      timings.push(`podman run: ${secs(performance.now() - t0)}`);
    },
    { timeout: 480_000 },
  );

  after(async () => {
    // By name, whatever happened: --force stops it first (-t 0: SIGKILL at once, it holds nothing to save).
    if (started) {
      const rm = await podman(['rm', '--force', '--time', '0', NAME]);
      assert.equal(rm.code, 0, `podman rm ${NAME}: ${rm.err}`);
    }
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('probes the simulator on this host: /metrics says h2h_probe_success 1 for every read-only endpoint', async (t) => {
    if (skip) return t.skip(skip);
    t.diagnostic(timings.join('; '));
    const want = READ_ONLY_ENDPOINTS.map((e) => `h2h_probe_success{target="ctr",endpoint="${e}"}`);
    const deadline = Date.now() + 30_000;
    let last = '';
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
        last = await res.text();
        const got = samples(last);
        // cek-trx-id waits for a transaction an earlier round's history showed: the second round, 2 s on.
        if (want.every((s) => got.get(s) === 1)) break;
      } catch (err) {
        last = String(err);
      }
      if (Date.now() > deadline) {
        const shown = last.split('\n').filter((l) => l.startsWith('h2h_probe_success') || !l.startsWith('h2h_'));
        assert.fail(
          redacted(`no success in 30 s; container ${await state()}\n${shown.join('\n')}\nlogs:\n${await logs()}`),
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    // Success means the simulator took the key read from the mounted file: it refuses any other, as `refused`.
    assert.ok(sim?.log.some((e) => e.endpoint === 'saldo-user' && e.ok === true));
  });

  it("runs the probe's process as uid 65532, not root", async (t) => {
    if (skip) return t.skip(skip);
    const pid = (await podman(['inspect', '--format', '{{.State.Pid}}', NAME])).out.trim();
    assert.match(pid, /^[1-9]\d*$/, `the container's process id: ${pid}`);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const ids = (field: string): string[] =>
      (new RegExp(`^${field}:\\s+(.*)$`, 'm').exec(status)?.[1] ?? '').trim().split(/\s+/);
    assert.deepEqual(ids('Uid'), [String(UID), String(UID), String(UID), String(UID)], status);
    assert.deepEqual(ids('Gid'), [String(UID), String(UID), String(UID), String(UID)], status);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.deepEqual(cmdline.slice(0, 3), ['node', '/app/dist/src/cli/main.js', 'probe'], 'it is the probe itself');
    // No capability left to a process that needs none.
    assert.equal(ids('CapEff')[0], '0000000000000000', status);
  });

  it('has a read-only root filesystem: a write to / fails with EROFS, even as root', async (t) => {
    if (skip) return t.skip(skip);
    const ro = await podman(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', NAME]);
    assert.equal(ro.out.trim(), 'true');
    const write = (path: string): string =>
      `try { require('node:fs').writeFileSync(${JSON.stringify(path)}, 'x'); console.log('WRITTEN') } catch (e) { console.log(e.code) }`;
    for (const [user, path] of [
      ['0', '/h2h-write-test'],
      [String(UID), '/app/h2h-write-test'],
    ] as const) {
      const r = await podman(['exec', '--user', user, NAME, 'node', '-e', write(path)]);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out.trim(), 'EROFS', `user ${user} writing ${path}`);
    }
  });

  it("answers its HEALTHCHECK (the probe's /healthz) healthy", async (t) => {
    if (skip) return t.skip(skip);
    const image = await podman(['image', 'inspect', '--format', '{{json .HealthCheck}}', IMAGE]);
    assert.match(image.out, /"CMD","node","-e",.*H2H_HEALTHCHECK_URL/, 'the image carries the HEALTHCHECK');
    const check = await podman(['healthcheck', 'run', NAME]);
    assert.equal(check.code, 0, `healthcheck: ${check.out}${check.err}`);
  });

  it('never shows the API key: neither in the container logs nor in its configuration', async (t) => {
    if (skip) return t.skip(skip);
    const text = await logs();
    assert.match(text, /H2H_PROBE_URL=http:\/\/127\.0\.0\.1:\d+/, 'the logs are read');
    assert.equal(text.includes(KEY), false, 'the key is not in podman logs');
    const inspect = await podman(['inspect', NAME]);
    assert.equal(inspect.code, 0, inspect.err);
    assert.equal(inspect.out.includes(KEY), false, 'the key is not in podman inspect');
  });

  it('holds Node 24 and the production dependencies only, owned by root', async (t) => {
    if (skip) return t.skip(skip);
    const script = [
      "const fs = require('node:fs');",
      "const has = (p) => fs.existsSync('/app/node_modules/' + p);",
      'console.log(JSON.stringify({ node: process.version, dev: ["typescript", "tsx", "@biomejs/biome", "@stoplight/prism-cli"].filter(has),',
      '  prod: ["prom-client", "node-cron", "yaml", "ajv"].filter(has), owner: fs.statSync("/app/dist").uid }));',
    ].join('\n');
    const r = await podman(['exec', NAME, 'node', '-e', script]);
    assert.equal(r.code, 0, r.err);
    const got = JSON.parse(r.out) as { node: string; dev: string[]; prod: string[]; owner: number };
    assert.match(got.node, /^v24\./);
    assert.deepEqual(got.dev, [], 'no development dependency in the image');
    assert.deepEqual(got.prod, ['prom-client', 'node-cron', 'yaml', 'ajv']);
    assert.equal(got.owner, 0, 'the code belongs to root, not to the user that runs it');
  });
});

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
