// Writes monitoring/kubernetes/prometheusrule.yaml: the Prometheus Operator's PrometheusRule holding exactly the
// groups of monitoring/alerts.yml (one source of truth; test/exporter.test.ts checks the file is up to date).
// Usage: node scripts/prometheus-rule.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import YAML from 'yaml';

const source = new URL('../monitoring/alerts.yml', import.meta.url);
const target = new URL('../monitoring/kubernetes/prometheusrule.yaml', import.meta.url);

export function prometheusRule() {
  const { groups } = YAML.parse(readFileSync(source, 'utf8'));
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'h2h-probe', labels: { 'app.kubernetes.io/name': 'h2h-probe' } },
    spec: { groups },
  };
  return `# Generated from monitoring/alerts.yml by \`npm run monitoring:rule\`: edit alerts.yml, not this file.\n${YAML.stringify(rule, { lineWidth: 0 })}`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const text = prometheusRule();
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      console.error('monitoring/kubernetes/prometheusrule.yaml is out of date: run npm run monitoring:rule');
      process.exit(1);
    }
  } else writeFileSync(target, text);
}
