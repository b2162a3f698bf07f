import { loadApiModel } from '../openapi/load.js';
import { defaultTarget, NO_SCHEDULE, type ProbeConfig, resolveProbeConfig } from '../probe/config.js';
import { makeLogger, Probe } from '../probe/probe.js';
import { startProbeServer } from '../probe/server.js';
import { redactValue, registerSecret } from '../redact.js';
import { type Command, EXIT, type Io, strFlag } from './command.js';

export const probe: Command = {
  name: 'probe',
  usage:
    'h2h probe [--config FILE] [--base-url URL --api-key KEY | --api-key-file FILE] [--name NAME] [--trx-id ID] [--ca-file PEM] [--server-name NAME] [--insecure-skip-verify] [--schedule CRON | --exporter [--timeout-offset 500ms]] [--timeout 10s] [--listen HOST:PORT] [--log-format text|json] [--once [--json]]',
  help: `Probes saldo-user, history-transaksi (small limit) and cek-trx-id of every target, each target on its own
node-cron schedule offset by its own jitter, validates each answer against openapi.yaml and the read-only
clauses, and serves /metrics, /healthz and /status. It cannot call invite-member. /probe?target=NAME[&endpoint=E]
runs a round of a configured target now and answers with that round's metrics alone (the exporter mode, for Prometheus
to schedule and shard; --exporter or schedule 'none' leaves the schedule to it). With no target at all it
probes the embedded simulator. When ready it prints H2H_PROBE_URL=<url>. SIGTERM or SIGINT stop the
schedules, let probes in flight end, and close the server. Exit: 0 ok, 1 a probe failed (--once),
2 usage or configuration (a port in use included), 3 internal error.

  --config FILE        YAML: schedule, timeout, body_cap, listen, history_limit, method, log_format,
                       targets: [{name, base_url, api_key_env | api_key_file, trx_id, schedule, timeout,
                       tls: {ca_file, server_name, insecure_skip_verify}}] (keys never in the file; paths
                       relative to the file)
  --base-url URL       one target without a file (its key: --api-key, --api-key-file or H2H_API_KEY)
  --name NAME          that target's label (default 'default')
  --trx-id ID          transaction for cek-trx-id (default: the newest an earlier history showed)
  --ca-file PEM        HTTPS: the CAs to trust instead of the system's
  --server-name NAME   HTTPS: the name the certificate must carry, when not the URL's host
  --insecure-skip-verify  HTTPS: probe even when the certificate does not verify (its expiry still exported)
  --schedule CRON      with seconds (default '*/30 * * * * *'); 'none': only when scraped at /probe
  --exporter           no schedule of its own: every target is probed when Prometheus scrapes
                       /probe?target=NAME, within its scrape timeout
  --timeout-offset D   /probe: taken off X-Prometheus-Scrape-Timeout-Seconds (default 500ms)
  --timeout D          per request; the three probes of a round run at once and must end within the
                       interval (default 10s)
  --listen HOST:PORT   metrics server (default 127.0.0.1:9464; port 0 picks a free one)
  --log-format F       text (default) or json: one line per failed probe on stderr
  --once               run one cycle, print a summary, exit 0 if every probe succeeded, else 1
  --json               with --once: the summary as JSON`,
  options: {
    config: { type: 'string' },
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    'api-key-file': { type: 'string' },
    name: { type: 'string' },
    'trx-id': { type: 'string' },
    'ca-file': { type: 'string' },
    'server-name': { type: 'string' },
    'insecure-skip-verify': { type: 'boolean' },
    schedule: { type: 'string' },
    exporter: { type: 'boolean' },
    'timeout-offset': { type: 'string' },
    timeout: { type: 'string' },
    listen: { type: 'string' },
    'log-format': { type: 'string' },
    once: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values, _pos, io) {
    const f = (n: string): string | undefined => strFlag(values, n);
    let cfg = resolveProbeConfig({
      config: f('config'),
      baseUrl: f('base-url'),
      apiKey: f('api-key'),
      apiKeyFile: f('api-key-file'),
      name: f('name'),
      trxId: f('trx-id'),
      schedule: f('schedule'),
      timeout: f('timeout'),
      listen: f('listen'),
      logFormat: f('log-format'),
      caFile: f('ca-file'),
      serverName: f('server-name'),
      insecureSkipVerify: values['insecure-skip-verify'] === true,
      exporter: values.exporter === true,
      timeoutOffset: f('timeout-offset'),
    });
    // The simulator is loaded only when it is probed: a probe of real targets does not hold it in memory.
    const sim = cfg.targets.length === 0 ? await (await import('../simulator/server.js')).startSimulator() : undefined;
    if (sim) {
      cfg = { ...cfg, targets: [defaultTarget(cfg, { name: 'simulator', baseUrl: sim.url, apiKey: sim.apiKey })] };
      io.err(`h2h probe: no target given: probing the embedded simulator at ${sim.url}`);
    }
    for (const t of cfg.targets) registerSecret(t.apiKey);
    const p = new Probe(loadApiModel(), cfg, makeLogger(cfg.logFormat, io.err));
    try {
      if (values.once) return await once(p, cfg, values.json === true, io);
      return await serve(p, cfg, io);
    } finally {
      await sim?.close();
    }
  },
};

async function once(p: Probe, cfg: ProbeConfig, json: boolean, io: Io): Promise<number> {
  const results = await p.cycle();
  const ok = results.every((r) => r.success);
  if (json) {
    io.out(JSON.stringify(redactValue({ ok, targets: Object.fromEntries(p.status) }), null, 2));
  } else {
    io.out(
      `h2h probe: one cycle, ${cfg.targets.length} target(s), ${ok ? 'every probe succeeded' : 'some probes FAILED'}`,
    );
    for (const [target, eps] of p.status) {
      for (const [endpoint, s] of Object.entries(eps)) {
        const result = s.skipped ? `skipped (${s.skipped})` : s.success ? 'ok' : `FAIL ${s.reason}: ${s.message ?? ''}`;
        io.out(
          `  ${target.padEnd(12)} ${endpoint.padEnd(18)} ${String(s.durationMs).padStart(8)} ms  HTTP ${String(s.httpStatus).padEnd(3)}  ${result}`,
        );
      }
    }
  }
  return ok ? EXIT.OK : EXIT.VIOLATED;
}

async function serve(p: Probe, cfg: ProbeConfig, io: Io): Promise<number> {
  const server = await startProbeServer(p, cfg.listen.host, cfg.listen.port);
  p.start();
  process.stdout.write(`H2H_PROBE_URL=${server.url}\n`);
  io.err(
    `h2h probe: ${cfg.targets.map((t) => (t.schedule === NO_SCHEDULE ? `${t.name} at /probe only` : `${t.name} on '${t.schedule}' +${t.jitterMs} ms`)).join('; ')}; metrics at ${server.url}/metrics, ${server.url}/probe?target=NAME`,
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      io.err(`h2h probe: ${signal}: stopping the schedule, waiting for probes in flight`);
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await p.stop();
  await server.close();
  return EXIT.OK;
}
