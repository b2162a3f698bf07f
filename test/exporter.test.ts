import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { loadApiModel } from '../src/openapi/load.ts';
import { READ_ONLY_ENDPOINTS } from '../src/openapi/types.ts';
import { PROBE_DEFAULTS, type ProbeConfig } from '../src/probe/config.ts';
import { Probe } from '../src/probe/probe.ts';
import { type ProbeServer, startProbeServer } from '../src/probe/server.ts';
import { REFERENCE } from '../src/simulator/legal.ts';
import { type Simulator, startSimulator } from '../src/simulator/server.ts';
import { ROOT, samples, targetFor } from './helpers.ts';

const api = loadApiModel();
const quiet = (): void => {};
const KEY = 'sk-exporter-DISTINCT-7c1f9e';

describe('the multi-target exporter: GET /probe?target=NAME', () => {
  let a: Simulator;
  let b: Simulator;
  let hung: Simulator;
  let probe: Probe;
  let server: ProbeServer;

  before(async () => {
    a = await startSimulator({ apiKey: KEY });
    // beta plays another legal reading: its answers carry more Content-Type parameters.
    b = await startSimulator({ apiKey: `${KEY}-b`, reading: { ...REFERENCE, 'content-type': 'params' } });
    hung = await startSimulator({ apiKey: KEY, fault: { name: 'hang' } });
    const cfg: ProbeConfig = {
      ...PROBE_DEFAULTS,
      listen: { host: '127.0.0.1', port: 0 },
      targets: [
        targetFor(a, { name: 'alpha', schedule: 'none' }),
        targetFor(b, { name: 'beta', schedule: 'none' }),
        targetFor(hung, { name: 'hung', schedule: 'none', timeoutMs: 5000 }),
      ],
    };
    probe = new Probe(api, cfg, quiet);
    server = await startProbeServer(probe, '127.0.0.1', 0);
  });

  after(async () => {
    await server?.close();
    await probe?.stop();
    await Promise.all([a?.close(), b?.close(), hung?.close()]);
  });

  const get = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/probe?${query}`, { headers });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  it('answers with the provider reading of the named target only, as the scheduled mode names it', async () => {
    const info = (text: string) =>
      [...samples(text).keys()].filter((k) => k.startsWith('h2h_provider_reading_info{')).sort();
    const alpha = info((await get('target=alpha')).text);
    const beta = info((await get('target=beta')).text);
    assert.ok(
      alpha.includes('h2h_provider_reading_info{target="alpha",point="content-type",value="charset"}'),
      alpha.join('\n'),
    );
    assert.ok(
      beta.includes('h2h_provider_reading_info{target="beta",point="content-type",value="params"}'),
      beta.join('\n'),
    );
    assert.ok(alpha.includes('h2h_provider_reading_info{target="alpha",point="saldo",value="small"}'));
    assert.deepEqual(
      alpha.map((k) => k.replace('alpha', 'X').replace(/value="[^"]*"/, '')),
      beta.map((k) => k.replace('beta', 'X').replace(/value="[^"]*"/, '')),
      'the same points for both',
    );
  });

  it('answers for each endpoint with only that target and endpoint: a registry made for the request', async () => {
    // beta first, so that a registry shared across requests would show its series in alpha's answers.
    assert.equal((await get('target=beta')).status, 200);
    for (const endpoint of READ_ONLY_ENDPOINTS) {
      const r = await get(`target=alpha&endpoint=${endpoint}`);
      assert.equal(r.status, 200, r.text);
      const m = samples(r.text);
      assert.equal(m.get(`h2h_probe_success{target="alpha",endpoint="${endpoint}"}`), 1, r.text);
      assert.equal(m.get(`h2h_probe_http_status_code{target="alpha",endpoint="${endpoint}"}`), 200);
      assert.ok((m.get(`h2h_probe_last_duration_seconds{target="alpha",endpoint="${endpoint}"}`) ?? 0) > 0);
      const series = [...m.keys()];
      assert.ok(
        series.every((s) => !s.includes('beta')),
        `no series of another target:\n${r.text}`,
      );
      const others = series.filter((s) => /endpoint="/.test(s) && !s.includes(`endpoint="${endpoint}"`));
      assert.deepEqual(others, [], 'no series of another endpoint');
      assert.ok(!series.some((s) => s.startsWith('process_') || s.startsWith('nodejs_')), 'no process metrics');
      if (endpoint === 'saldo-user') {
        assert.equal(m.get('h2h_balance{target="alpha"}'), a.state.saldo(a.fixture.suite.account));
        assert.ok((m.get('h2h_balance_timestamp_seconds{target="alpha"}') ?? 0) > Date.now() / 1000 - 60);
      } else assert.equal(m.get('h2h_balance{target="alpha"}'), undefined, 'the balance only from saldo-user');
    }
    const all = samples((await get('target=alpha')).text);
    for (const endpoint of READ_ONLY_ENDPOINTS)
      assert.equal(all.get(`h2h_probe_success{target="alpha",endpoint="${endpoint}"}`), 1, endpoint);
  });

  it('a breach shows as its reason and clause, in the answer of that check only', async () => {
    a.setFault({ name: 'saldo-as-string' });
    try {
      const m = samples((await get('target=alpha&endpoint=saldo-user')).text);
      assert.equal(m.get('h2h_probe_success{target="alpha",endpoint="saldo-user"}'), 0);
      assert.equal(m.get('h2h_probe_failure{target="alpha",endpoint="saldo-user",reason="schema"}'), 1);
      assert.ok(
        (m.get('h2h_probe_contract_violations{target="alpha",endpoint="saldo-user",clause="BAL-1"}') ?? 0) >= 1,
      );
      assert.equal(m.get('h2h_balance{target="alpha"}'), undefined, 'no balance from a failed read');
    } finally {
      a.setFault(null);
    }
    const again = samples((await get('target=alpha&endpoint=saldo-user')).text);
    assert.equal(again.get('h2h_probe_success{target="alpha",endpoint="saldo-user"}'), 1);
    assert.ok(![...again.keys()].some((s) => s.startsWith('h2h_probe_failure')), 'nothing left from the last check');
  });

  it("honours Prometheus' scrape timeout against a hanging target: answers within it, success 0, reason timeout", async () => {
    const started = performance.now();
    const r = await get('target=hung', { 'X-Prometheus-Scrape-Timeout-Seconds': '1.5' });
    const took = performance.now() - started;
    assert.equal(r.status, 200);
    assert.ok(took < 1500, `answered in ${took.toFixed(0)} ms, within the 1.5 s scrape timeout`);
    assert.ok(took >= 900, `the deadline (1.5 s less the 0.5 s offset) was used: ${took.toFixed(0)} ms`);
    const m = samples(r.text);
    assert.equal(m.get('h2h_probe_timeout_seconds{target="hung"}'), 1);
    for (const endpoint of ['saldo-user', 'history-transaksi']) {
      assert.equal(m.get(`h2h_probe_success{target="hung",endpoint="${endpoint}"}`), 0, endpoint);
      assert.equal(m.get(`h2h_probe_failure{target="hung",endpoint="${endpoint}",reason="timeout"}`), 1, endpoint);
    }
    // Without the header the target's own timeout holds; a header over it is capped by it.
    const capped = samples((await get('target=alpha', { 'X-Prometheus-Scrape-Timeout-Seconds': '30' })).text);
    assert.equal(capped.get('h2h_probe_timeout_seconds{target="alpha"}'), PROBE_DEFAULTS.timeoutMs / 1000);
  });

  it('refuses an unknown target, an endpoint that is not read-only, and a key in the URL, with 400 and the names', async () => {
    const unknown = await get('target=gamma');
    assert.equal(unknown.status, 400);
    assert.match(unknown.text, /unknown target 'gamma': the configured targets are alpha, beta, hung/);
    const missing = await get('');
    assert.equal(missing.status, 400);
    assert.match(missing.text, /target is missing/);
    const write = await get('target=alpha&endpoint=invite-member');
    assert.equal(write.status, 400);
    assert.match(
      write.text,
      /unknown endpoint 'invite-member': \/probe probes saldo-user, history-transaksi, cek-trx-id/,
    );
    const keyed = await get(`target=alpha&api_key=${KEY}`);
    assert.equal(keyed.status, 400);
    assert.match(keyed.text, /keys come from the config, never from the URL/);
    for (const r of [unknown, missing, write, keyed]) assert.ok(!r.text.includes(KEY));
    // Bad requests are counted on /metrics, by outcome.
    const own = samples(await (await fetch(`${server.url}/metrics`)).text());
    assert.ok((own.get('h2h_probe_exporter_requests_total{outcome="bad_request"}') ?? 0) >= 4);
  });

  it('&debug=true adds the exchanges as comments, redacted: never the key, in the URL, body or debug output', async () => {
    for (const target of ['alpha', 'beta']) {
      const r = await get(`target=${target}&debug=true`);
      assert.equal(r.status, 200);
      assert.match(r.text, /^# saldo-user: success in [\d.]+ ms$/m);
      assert.match(r.text, /^# {3}request: POST http:\/\/127\.0\.0\.1:\d+\/api\/saldo-user$/m);
      assert.match(r.text, /^# {3}params: \{"api_key":"\*\*\*"\}$/m);
      assert.match(r.text, /^# {3}response: HTTP 200 application\/json/m);
      assert.match(r.text, /^h2h_probe_success\{target="[a-z]+",endpoint="saldo-user"\} 1$/m);
      assert.ok(!r.text.includes(KEY), `the key appears in the debug output of ${target}`);
    }
    const status = await (await fetch(`${server.url}/status`)).text();
    assert.ok(!status.includes(KEY));
    // On GET the key is in the URL sent: the debug output shows it redacted.
    const getProbe = new Probe(
      api,
      { ...PROBE_DEFAULTS, method: 'GET', targets: [targetFor(a, { name: 'alpha', schedule: 'none' })] },
      quiet,
    );
    const getServer = await startProbeServer(getProbe, '127.0.0.1', 0);
    try {
      const text = await (await fetch(`${getServer.url}/probe?target=alpha&debug=true`)).text();
      assert.match(text, /^# {3}request: GET http:\/\/127\.0\.0\.1:\d+\/api\/saldo-user\?api_key=\*\*\*$/m);
      assert.match(text, /^h2h_probe_success\{target="alpha",endpoint="saldo-user"\} 1$/m);
      assert.ok(!text.includes(KEY), 'the key in a GET URL');
    } finally {
      await getServer.close();
      await getProbe.stop();
    }
  });
});

describe('monitoring/kubernetes: the exporter mode on the Prometheus Operator', () => {
  it('the PrometheusRule holds exactly the groups of alerts.yml (generated by npm run monitoring:rule)', () => {
    const r = spawnSync(process.execPath, ['scripts/prometheus-rule.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const rule = YAML.parse(readFileSync(join(ROOT, 'monitoring/kubernetes/prometheusrule.yaml'), 'utf8'));
    const alerts = YAML.parse(readFileSync(join(ROOT, 'monitoring/alerts.yml'), 'utf8'));
    assert.equal(rule.kind, 'PrometheusRule');
    assert.deepEqual(rule.spec.groups, alerts.groups);
  });

  it('the Probe scrapes /probe on the Service of the Deployment, whose config has no schedule and no key', () => {
    const docs = (file: string) =>
      YAML.parseAllDocuments(readFileSync(join(ROOT, 'monitoring/kubernetes', file), 'utf8')).map((d) => d.toJS());
    const [probeCr] = docs('probe.yaml');
    const [configMap, deployment, service] = docs('probe-deployment.yaml');
    assert.equal(probeCr.kind, 'Probe');
    assert.equal(probeCr.spec.prober.path, '/probe');
    assert.equal(probeCr.spec.prober.url, `${service.metadata.name}.monitoring.svc:${service.spec.ports[0].port}`);
    const probeYaml = YAML.parse(configMap.data['probe.yaml']);
    assert.equal(probeYaml.schedule, 'none');
    assert.deepEqual(
      probeCr.spec.targets.staticConfig.static,
      probeYaml.targets.map((t: { name: string }) => t.name),
      "the Probe's targets are the config's names",
    );
    assert.ok(probeYaml.targets.every((t: Record<string, unknown>) => t.api_key_env && !('api_key' in t)));
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container.args.includes('--exporter'));
    const envNames = container.env.map((e: { name: string }) => e.name).sort();
    assert.deepEqual(envNames, probeYaml.targets.map((t: { api_key_env: string }) => t.api_key_env).sort());
  });
});
