import { proxySecrets } from '../client/proxy.js';
import { loadApiModel } from '../openapi/load.js';
import {
  defaultTarget,
  NO_SCHEDULE,
  PROBE_FILE_EXTRAS,
  type ProbeConfig,
  resolveProbeConfig,
} from '../probe/config.js';
import { makeLogger, Probe } from '../probe/probe.js';
import { startProbeServer } from '../probe/server.js';
import { redactValue, registerSecret } from '../redact.js';
import { get } from '../shared/settings.js';
import { type Command, EXIT, type Io } from './command.js';
import { stopSignal } from './stop-signal.js';

export const probe: Command = {
  name: 'probe',
  sends: true,
  about: `Probes saldo-user, history-transaksi (small limit) and cek-trx-id of every target, each target on its own
node-cron schedule offset by its own jitter, validates each answer against openapi.yaml and the read-only
clauses, and serves /metrics, /healthz and /status. It cannot call invite-member. /probe?target=NAME[&endpoint=E]
runs a round of a configured target now and answers with that round's metrics alone (the exporter mode, for
Prometheus to schedule and shard; --exporter or schedule 'none' leaves the schedule to it). With no target at all
it probes the embedded simulator. When ready it prints H2H_PROBE_URL=<url>. SIGTERM or SIGINT stop the
schedules, let probes in flight end, and close the server.

Config file: the settings below under their file keys, and targets: [{name, base_url, api_key_env |
api_key_file, trx_id, schedule, timeout, tls: {ca_file, server_name, insecure_skip_verify}}] (keys never in the
file; paths relative to the file).`,
  fileExtras: PROBE_FILE_EXTRAS,
  async run(settings, io) {
    let cfg = resolveProbeConfig(settings);
    // The simulator is loaded only when it is probed: a probe of real targets does not hold it in memory.
    const sim = cfg.targets.length === 0 ? await (await import('../simulator/server.js')).startSimulator() : undefined;
    if (sim) {
      cfg = { ...cfg, targets: [defaultTarget(cfg, { name: 'simulator', baseUrl: sim.url, apiKey: sim.apiKey })] };
      io.err(`h2h probe: no target given: probing the embedded simulator at ${sim.url}`);
    }
    for (const t of cfg.targets) {
      if (t.tls?.insecureSkipVerify)
        io.err(
          `h2h probe: WARNING: ${t.name}: insecure_skip_verify: its certificate is not verified; whoever sits between here and it can read the API key. For a test target only; for a private CA give ca_file (--ca-file) instead.`,
        );
      registerSecret(t.apiKey);
      for (const secret of proxySecrets(t.proxyUrl ?? '')) registerSecret(secret);
    }
    const p = new Probe(loadApiModel(), cfg, makeLogger(cfg.logFormat, io.err));
    try {
      if (get.bool(settings, 'once')) return await once(p, cfg, get.bool(settings, 'json') === true, io);
      return await serve(p, cfg, io);
    } finally {
      await sim?.close();
    }
  },
};

async function once(p: Probe, cfg: ProbeConfig, json: boolean, io: Io): Promise<number> {
  const results = await p.roundAll();
  const ok = results.every((r) => r.success);
  if (json) {
    io.out(JSON.stringify(redactValue({ ok, targets: Object.fromEntries(p.status.byTarget) }), null, 2));
  } else {
    io.out(
      `h2h probe: one round of ${cfg.targets.length} target(s), ${ok ? 'every probe succeeded' : 'some probes FAILED'}`,
    );
    for (const [target, eps] of p.status.byTarget) {
      for (const [endpoint, s] of Object.entries(eps)) {
        const result = s.skipped
          ? `skipped (${s.skipped})`
          : s.success
            ? 'ok'
            : `FAIL ${s.reason}: ${s.message ?? ''}${s.url && !s.message?.includes(s.url) ? ` (called ${s.url})` : ''}`;
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
  const stopped = stopSignal();
  process.stdout.write(`H2H_PROBE_URL=${server.url}\n`);
  io.err(
    `h2h probe: ${cfg.targets.map((t) => (t.schedule === NO_SCHEDULE ? `${t.name} at /probe only` : `${t.name} on '${t.schedule}' +${t.jitterMs} ms`)).join('; ')}; metrics at ${server.url}/metrics, ${server.url}/probe?target=NAME`,
  );
  io.err(`h2h probe: ${await stopped}: stopping the schedule, waiting for probes in flight`);
  await p.stop();
  await server.close();
  return EXIT.OK;
}
