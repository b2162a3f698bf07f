import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopChild } from './helpers.ts';

/** Debian's tinyproxy on a free loopback port, with basic auth, logging every request it forwards. */
export interface ProxyServer {
  /** The proxy's URL with its credentials: what a user puts in HTTPS_PROXY. */
  url: string;
  /** The same with a wrong password. */
  wrongUrl: string;
  port: number;
  /** The request lines it logged: `POST http://127.0.0.1:4010/api/saldo-user HTTP/1.1`, `CONNECT 127.0.0.1:4011 HTTP/1.1`. */
  requests(): string[];
  stop(): Promise<void>;
}

export const hasTinyproxy = spawnSync('tinyproxy', ['-v']).status === 0;

export async function startTinyproxy(user: string, password: string): Promise<ProxyServer> {
  const dir = mkdtempSync(join(tmpdir(), 'h2h-proxy-'));
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  const config = join(dir, 'tinyproxy.conf');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      'LogLevel Info',
      `LogFile "${log}"`,
      'MaxClients 100',
      'Allow 127.0.0.1',
      `BasicAuth ${user} ${password}`,
      'DisableViaHeader Yes',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = (): Promise<void> => stopChild(child);
  const end = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > end || child.exitCode !== null) {
      await stop();
      assert.fail(`tinyproxy did not listen on ${port}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    wrongUrl: `http://${user}:wrong-${encodeURIComponent(password)}@127.0.0.1:${port}`,
    port,
    requests: () =>
      existsSync(log)
        ? [...readFileSync(log, 'utf8').matchAll(/Request \(file descriptor \d+\): (.*)$/gm)].map((m) => m[1] ?? '')
        : [],
    stop,
  };
}
