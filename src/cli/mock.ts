import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/config-file.js';
import { FAULTS, isFaultName } from '../simulator/faults.js';
import { loadFixture } from '../simulator/fixtures.js';
import { describeReading, KNOB_NAMES, KNOBS, PROFILES, parseReading, readingFromFile } from '../simulator/legal.js';
import { startSimulator } from '../simulator/server.js';
import { type Command, intFlag, strFlag } from './command.js';

export const mock: Command = {
  name: 'mock',
  usage:
    'h2h mock [--host H] [--port N] [--prefix /P] [--fixtures FILE] [--api-key KEY] [--admin-token T] [--fault NAME] [--fault-ms N] [--latency-ms N] [--legal knob=value,... | --legal-profile FILE] [--tls-cert PEM --tls-key PEM]',
  help: `Serves the four endpoints on GET and POST. When ready it prints H2H_BASE_URL=<url> and H2H_API_KEY=<key>
on their own lines. Stops on SIGINT or SIGTERM.

  --host H           address to bind (default 127.0.0.1)
  --port N           port, 0 picks a free one (default 0)
  --prefix /P        serve the API under a path prefix (default none)
  --fixtures FILE    YAML state (default src/simulator/fixtures.yaml)
  --api-key KEY      the demo account's key (default the fixture's, printed as H2H_API_KEY; a key given
                     here is not printed back)
  --admin-token T    the token /__sim/* requires as 'Authorization: Bearer T' (or H2H_ADMIN_TOKEN); on
                     loopback they are open without one, on any other --host one is made and printed
                     as H2H_ADMIN_TOKEN
  --fault NAME       break one clause or the transport (see below); switch at runtime with
                     POST /__sim/fault?name=NAME[&ms=N] (name=none turns it off)
  --fault-ms N       milliseconds for the latency and slow-drip faults
  --latency-ms N     fixed delay added to every API answer (default 0)
  --legal R          a legal reading of what the provider leaves open: a profile and/or knob=value items,
                     e.g. 'legal', 'slot=random,order=shuffled' or 'legal,lag=2s' (default: the reference)
  --legal-profile F  the same from a YAML file: {profile: NAME, <knob>: <value>, ...}
  --tls-cert PEM     serve HTTPS with this certificate (chain) ...
  --tls-key PEM      ... and its private key (both or neither)

Knobs (the reference's value first):
${KNOB_NAMES.map((k) => `  ${k.padEnd(15)} ${KNOBS[k].values.join(' | ')}${k === 'rate-limit' || k === 'lag' ? ' (or any)' : ''}\n  ${''.padEnd(15)} ${KNOBS[k].about}`).join('\n')}

Profiles: ${Object.entries(PROFILES)
    .map(
      ([name, p]) =>
        `${name}${
          Object.keys(p).length
            ? ` (${Object.entries(p)
                .map(([k, v]) => `${k}=${v}`)
                .join(',')})`
            : ''
        }`,
    )
    .join('; ')}

Faults:
${FAULTS.map((f) => `  ${f.name.padEnd(24)} ${'clause' in f && f.clause ? `${f.clause}: ` : 'transport: '}${f.description}`).join('\n')}`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    prefix: { type: 'string' },
    fixtures: { type: 'string' },
    'api-key': { type: 'string' },
    'admin-token': { type: 'string' },
    fault: { type: 'string' },
    'fault-ms': { type: 'string' },
    'latency-ms': { type: 'string' },
    legal: { type: 'string' },
    'legal-profile': { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
  },
  async run(values, _pos, io) {
    const faultName = strFlag(values, 'fault');
    if (faultName !== undefined && !isFaultName(faultName)) {
      throw new UsageError(`--fault: unknown fault '${faultName}'; one of: ${FAULTS.map((f) => f.name).join(', ')}`);
    }
    const legal = strFlag(values, 'legal');
    const profileFile = strFlag(values, 'legal-profile');
    if (legal !== undefined && profileFile !== undefined)
      throw new UsageError('--legal and --legal-profile are two ways to give one reading: use one');
    const reading = profileFile ? readingFromFile(profileFile) : parseReading(legal ?? '');
    const prefix = strFlag(values, 'prefix');
    if (prefix !== undefined && !/^\/[\w./-]*$/.test(prefix))
      throw new UsageError(`--prefix must start with / and hold only path characters, got '${prefix}'`);
    const faultMs = intFlag(values, 'fault-ms', 0, 600_000);
    const fixturesPath = strFlag(values, 'fixtures');
    const certFile = strFlag(values, 'tls-cert');
    const keyFile = strFlag(values, 'tls-key');
    if ((certFile === undefined) !== (keyFile === undefined))
      throw new UsageError('--tls-cert and --tls-key go together: give both or neither');
    const adminToken = strFlag(values, 'admin-token') ?? process.env.H2H_ADMIN_TOKEN;
    const sim = await startSimulator({
      ...(adminToken ? { adminToken } : {}),
      host: strFlag(values, 'host') ?? '127.0.0.1',
      port: intFlag(values, 'port', 0, 65535) ?? 0,
      prefix: prefix ?? '',
      fixture: fixturesPath ? loadFixture(fixturesPath) : loadFixture(),
      apiKey: strFlag(values, 'api-key'),
      fault:
        faultName && isFaultName(faultName)
          ? { name: faultName, ...(faultMs !== undefined ? { ms: faultMs } : {}) }
          : null,
      latencyMs: intFlag(values, 'latency-ms', 0, 600_000) ?? 0,
      reading,
      ...(certFile && keyFile
        ? {
            tls: {
              cert: readPem(certFile, '--tls-cert', 'CERTIFICATE'),
              key: readPem(keyFile, '--tls-key', 'PRIVATE KEY'),
            },
          }
        : {}),
    });
    // The simulator's own demo key is announced raw so a shell or a test can pick it up; a key the user gave
    // is not written back (whoever gave it knows it), nor is anything derived from it.
    const given = strFlag(values, 'api-key') !== undefined;
    process.stdout.write(
      `H2H_BASE_URL=${sim.url}\n${given ? '' : `H2H_API_KEY=${sim.apiKey}\n`}${sim.adminToken ? `H2H_ADMIN_TOKEN=${sim.adminToken}\n` : ''}`,
    );
    io.err(
      `h2h mock: serving ${sim.url}/api/* (fault: ${faultName ?? 'none'}, reading: ${describeReading(reading)}); admin at /__sim/faults`,
    );
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        void sim.close().then(resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return 0;
  },
};

/** A PEM file, read and checked for the block it must hold; a UsageError naming the flag otherwise. */
function readPem(path: string, flag: string, block: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (err) {
    throw new UsageError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? 'cannot read'}`);
  }
  if (!pem.toString('latin1').includes(`-----BEGIN `) || !pem.toString('latin1').includes(block))
    throw new UsageError(`${flag} ${path}: not a PEM file holding a ${block}`);
  return pem;
}
