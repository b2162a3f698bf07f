import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate made for a test: its files, its PEM and its exact notAfter. */
export interface TestCert {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  /** notAfter, Unix seconds. */
  notAfter: number;
}

/** A CA made in a folder, which signs server certificates with the dates and names a test asks for. */
export interface TestPki {
  caFile: string;
  issue(name: string, opts: { sans: string[]; notBefore: Date; notAfter: Date }): TestCert;
  selfSigned(name: string, opts: { sans: string[]; days: number }): TestCert;
}

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}\n${r.stderr}`);
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate/-enddate` takes it. */
const asn1Time = (d: Date): string => `${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/**
 * A CA of its own in `dir`. Certificates are signed with `openssl ca`, which takes any start and end date, so
 * an expired certificate is as easy as a valid one and each notAfter is known to the second.
 */
export function makePki(dir: string): TestPki {
  const caFile = join(dir, 'ca.pem');
  openssl(
    ['req', '-x509', ...newKey, '-keyout', 'ca.key', '-out', caFile, '-days', '30', '-subj', '/CN=h2h test CA'],
    dir,
  );
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `database = ${join(dir, 'index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${join(dir, 'serial')}`,
      'default_md = sha256',
      'policy = any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  const read = (name: string, notAfter: number): TestCert => {
    const certFile = join(dir, `${name}.pem`);
    const keyFile = join(dir, `${name}.key`);
    return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile), notAfter };
  };
  return {
    caFile,
    issue(name, { sans, notBefore, notAfter }) {
      openssl(
        [
          'req',
          ...newKey,
          '-keyout',
          `${name}.key`,
          '-out',
          `${name}.csr`,
          '-subj',
          `/CN=${name}`,
          '-addext',
          `subjectAltName=${sans.join(',')}`,
        ],
        dir,
      );
      openssl(
        [
          'ca',
          '-batch',
          '-notext',
          '-config',
          'ca.cnf',
          '-cert',
          caFile,
          '-keyfile',
          'ca.key',
          '-in',
          `${name}.csr`,
          '-out',
          `${name}.pem`,
          '-startdate',
          asn1Time(notBefore),
          '-enddate',
          asn1Time(notAfter),
        ],
        dir,
      );
      return read(name, Math.floor(notAfter.getTime() / 1000));
    },
    selfSigned(name, { sans, days }) {
      openssl(
        [
          'req',
          '-x509',
          ...newKey,
          '-keyout',
          `${name}.key`,
          '-out',
          `${name}.pem`,
          '-days',
          String(days),
          '-subj',
          `/CN=${name}`,
          '-addext',
          `subjectAltName=${sans.join(',')}`,
        ],
        dir,
      );
      const end = spawnSync('openssl', ['x509', '-noout', '-enddate', '-in', `${name}.pem`], {
        cwd: dir,
        encoding: 'utf8',
      });
      return read(name, Math.floor(Date.parse(end.stdout.replace(/^notAfter=/, '').trim()) / 1000));
    },
  };
}
