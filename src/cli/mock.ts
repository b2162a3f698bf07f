import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/config-file.js';
import { EXIT } from '../shared/exit.js';
import { get } from '../shared/settings.js';
import { FAULTS, isFaultName } from '../simulator/faults/index.js';
import { loadFixture } from '../simulator/fixtures.js';
import { describeReading, KNOB_NAMES, KNOBS, PROFILES, parseReading, servedFromFile } from '../simulator/legal.js';
import { startSimulator } from '../simulator/server.js';
import type { Command } from './command.js';
import { stopSignal } from './stop-signal.js';

export const mock: Command = {
  name: 'mock',
  about: `Serves the four endpoints on GET and POST. When ready it prints H2H_BASE_URL=<url> and H2H_API_KEY=<key>
on their own lines. Stops on SIGINT or SIGTERM. The admin endpoints /__sim/* are open on loopback unless
--admin-token is given; on any other address a token is made and printed as H2H_ADMIN_TOKEN. --legal and
--legal-profile are two ways to give one reading: use one.`,
  more: `Knobs (the reference's value first):
${KNOB_NAMES.map((k) => `  ${k.padEnd(15)} ${KNOBS[k].values.join(' | ')}${k === 'rate-limit' || k === 'lag' || k === 'balance' ? ' (or any)' : ''}\n  ${''.padEnd(15)} ${KNOBS[k].about}`).join('\n')}

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
${FAULTS.map((f) => `  ${f.name.padEnd(24)} ${'clause' in f && f.clause ? `${[f.clause, ...(f.also ?? [])].join(' ')}: ` : 'transport: '}${f.description}`).join('\n')}`,
  async run(settings, io) {
    const faultName = get.str(settings, 'fault');
    if (faultName !== undefined && !isFaultName(faultName)) {
      throw new UsageError(`--fault: unknown fault '${faultName}'; one of: ${FAULTS.map((f) => f.name).join(', ')}`);
    }
    const legal = get.str(settings, 'legal');
    const profileFile = get.str(settings, 'legal-profile');
    if (legal !== undefined && profileFile !== undefined)
      throw new UsageError('--legal and --legal-profile are two ways to give one reading: use one');
    // A learned file's vocabulary (words, codes, fields, forms, products, checks) is served with its knobs.
    const { reading, vocabulary } = profileFile ? servedFromFile(profileFile) : { reading: parseReading(legal ?? '') };
    const prefix = get.str(settings, 'prefix');
    if (prefix !== undefined && !/^\/[\w./-]*$/.test(prefix))
      throw new UsageError(`--prefix must start with / and hold only path characters, got '${prefix}'`);
    const faultMs = get.num(settings, 'fault-delay');
    const fixturesPath = get.str(settings, 'fixtures');
    const certFile = get.str(settings, 'tls-cert');
    const keyFile = get.str(settings, 'tls-key');
    if ((certFile === undefined) !== (keyFile === undefined))
      throw new UsageError('--tls-cert and --tls-key go together: give both or neither');
    const adminToken = get.str(settings, 'admin-token');
    const listen = get.listen(settings, 'listen');
    const apiKey = get.str(settings, 'api-key');
    const sim = await startSimulator({
      ...(adminToken ? { adminToken } : {}),
      host: listen.host,
      port: listen.port,
      prefix: prefix ?? '',
      fixture: fixturesPath ? loadFixture(fixturesPath) : loadFixture(),
      ...(apiKey ? { apiKey } : {}),
      fault:
        faultName && isFaultName(faultName)
          ? { name: faultName, ...(faultMs !== undefined ? { ms: faultMs } : {}) }
          : null,
      latencyMs: get.num(settings, 'latency'),
      reading,
      ...(vocabulary ? { vocabulary } : {}),
      ...(certFile && keyFile
        ? {
            tls: {
              cert: readPem(certFile, '--tls-cert', 'CERTIFICATE'),
              key: readPem(keyFile, '--tls-key', 'PRIVATE KEY'),
            },
          }
        : {}),
    });
    const stopped = stopSignal();
    // The simulator's own demo key is announced raw so a shell or a test can pick it up; a key the user gave
    // is not written back (whoever gave it knows it), nor is anything derived from it.
    process.stdout.write(
      `H2H_BASE_URL=${sim.url}\n${apiKey ? '' : `H2H_API_KEY=${sim.apiKey}\n`}${sim.adminToken ? `H2H_ADMIN_TOKEN=${sim.adminToken}\n` : ''}`,
    );
    io.err(
      `h2h mock: serving ${sim.url}/api/* (fault: ${faultName ?? 'none'}, reading: ${describeReading(reading)}${
        vocabulary?.learned
          ? `; words, codes, fields, forms and products learned from ${vocabulary.learned.from} at ${vocabulary.learned.at}`
          : ''
      }); admin at /__sim/faults`,
    );
    await stopped;
    await sim.close();
    return EXIT.OK;
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
