// h2h init: the command, what it says and what it does next. What it writes is in init-files.ts (the names, and
// how a file is written without replacing one), init-settings.ts (h2h.config.yaml, probe.yaml), init-ci.ts (the CI
// jobs) and init-runner.ts (how CI runs h2h, and the toolkit packed for it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';
import { get } from '../shared/settings.js';
import { type Command, EXIT, type Io } from './command.js';
import { githubWorkflow, gitlabCi, gitlabJob } from './init-ci.js';
import { GATE_RUN, INIT_FILES, JUNIT, KEY_ENV, type Outcome, REPORTS, SUMMARY_MD, writeNew } from './init-files.js';
import { packToolkit, type Runner, runnerFor } from './init-runner.js';
import { gateConfig, probeConfig } from './init-settings.js';

function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Paragraphs (split by blank lines) wrapped at `width` columns; a `code span` is never split. */
function reflow(text: string, width = 116): string {
  return text
    .split(/\n\s*\n/)
    .map((para) => {
      const lines: string[] = [];
      let line = '';
      for (const [word] of para.matchAll(/(?:`[^`]*`|[^\s`])+/g)) {
        const w = word.replace(/\s+/g, ' ');
        if (line && line.length + 1 + w.length > width) {
          lines.push(line);
          line = w;
        } else line = line ? `${line} ${w}` : w;
      }
      return [...lines, line].join('\n');
    })
    .join('\n\n');
}

export const init: Command = {
  name: 'init',
  about: reflow(`Asks nothing it can infer. Writes into the current folder ${INIT_FILES.gate}, with every key of
\`h2h contract --config ${INIT_FILES.gate}\` commented out at its default and never the key (that comes from
${KEY_ENV}), and ${INIT_FILES.probe}: the probe, one target whose key comes from the variable ${KEY_ENV}
through api_key_env, and a schedule. The target's base URL is --base-url, or H2H_BASE_URL when set, else a
placeholder to edit.

--ci github adds ${INIT_FILES.github}: Node 24, the gate with H2H_BASE_URL and ${KEY_ENV} from the
repository's secrets, ${SUMMARY_MD} appended to the job summary, ${JUNIT} as a test report and ${REPORTS}/ as
an artifact, also when the gate fails. --ci gitlab adds ${INIT_FILES.gitlab}: node:24-slim, ${JUNIT} as the
JUnit report, ${REPORTS}/ kept \`when: always\`. The job runs the project's own h2h after \`npm ci\` when its
package.json names h2h-contract beside a package-lock.json (npm install took it from a tarball, a git URL or
the registry); else it installs h2h-contract first, from --package SPEC (a tarball in the repository, a git
URL), by default from vendor/h2h-contract-VERSION.tgz: h2h init packs the toolkit it runs from into that file
(npm pack; never over a file that exists), to commit with the job. The npm registry has no h2h-contract yet.

--package SPEC: where the CI job installs h2h-contract from when package.json does not name it (then nothing is
packed). For a git URL (given, or the one package.json names) the GitLab job takes the node:24 image (it has git).

It never overwrites a file: one that exists is left as it is and named (saying whether it is what h2h init
writes), and the others are still written, so that running it again, or again with --ci, adds only what is
missing. Then it lists the commands to run next. Node 24 LTS is the target; Node 20.10 and later work.`),
  async run(settings, io) {
    const dir = process.cwd();
    const v = version();
    const baseUrl = get.str(settings, 'base-url');
    const ci = get.str(settings, 'ci') as 'github' | 'gitlab' | undefined;
    const runner = runnerFor(dir, v, get.str(settings, 'package'), ci !== undefined);
    const outcomes: Outcome[] = [
      writeNew(dir, INIT_FILES.gate, "the gate's settings", gateConfig(v, baseUrl)),
      writeNew(dir, INIT_FILES.probe, "the probe's settings", probeConfig(v, baseUrl)),
    ];
    if (runner.vendored) outcomes.push(packToolkit(dir, runner.vendored));
    if (ci === 'github')
      outcomes.push(writeNew(dir, INIT_FILES.github, 'the GitHub Actions job', githubWorkflow(v, runner)));
    if (ci === 'gitlab') outcomes.push(writeNew(dir, INIT_FILES.gitlab, 'the GitLab CI job', gitlabCi(v, runner)));
    report(outcomes, io, ci, runner);
    const failed = outcomes.filter((o) => o.status === 'failed');
    if (failed.length === 0) {
      nextSteps(io, { baseUrl, ci, runner, probeWritten: outcomes[1]?.status === 'wrote' });
      return EXIT.OK;
    }
    return EXIT.USAGE;
  },
};

function report(outcomes: Outcome[], io: Io, ci: string | undefined, runner: Runner): void {
  for (const o of outcomes) {
    if (o.status === 'wrote') io.out(`h2h init: wrote ${o.path} (${o.what})`);
    else if (o.status === 'exists') {
      io.out(
        `h2h init: left ${o.path} as it is: it exists, ${o.same === undefined ? 'and the job installs it' : o.same ? 'the same as h2h init writes' : 'and differs from what h2h init writes (yours is kept)'}`,
      );
      // A project's .gitlab-ci.yml holds its other jobs: the gate's job, to add to it.
      if (ci === 'gitlab' && o.path === INIT_FILES.gitlab && !o.same) {
        let text = '';
        try {
          text = readFileSync(join(process.cwd(), o.path), 'utf8');
        } catch {
          // Unreadable: the job is printed all the same.
        }
        if (!/^h2h-contract:/m.test(text))
          io.out(
            `h2h init: the job to add to ${o.path} (its stage, test, must be one of the file's stages):\n\n${gitlabJob(runner)}`,
          );
      }
    } else io.err(`h2h init: could not write ${o.path} (${o.what}): ${o.reason}`);
  }
}

function nextSteps(
  io: Io,
  opts: { baseUrl: string | undefined; ci: string | undefined; runner: Runner; probeWritten: boolean },
): void {
  const h2h = opts.runner.local;
  const lines = [
    '',
    'Next:',
    `  ${h2h} ${GATE_RUN}`,
    `      the gate against its embedded simulator, no key needed; then see ${SUMMARY_MD}`,
  ];
  if (!opts.baseUrl && opts.probeWritten)
    lines.push(`  edit ${INIT_FILES.probe}: targets[0].base_url is a placeholder for your API's base URL`);
  lines.push(
    `  set ${KEY_ENV} in the environment, from your secret store (not on a command line: shell history keeps it)`,
    `  ${h2h} ${GATE_RUN} --base-url ${opts.baseUrl ?? 'URL'}`,
    '      the gate against your API, read-only',
    `  ${h2h} probe --once --config ${INIT_FILES.probe}`,
    '      one round of the probe; without --once it stays up and serves /metrics',
  );
  const vendored = opts.runner.vendored;
  if (vendored)
    lines.push(
      `  the CI job installs h2h-contract from ${vendored} (the npm registry has none yet): commit it with the job`,
      '      (another version: npm pack it in a checkout of h2h-contract, put it in vendor/ and name it in the job)',
    );
  const commit = [INIT_FILES.gate, ...(vendored ? [vendored] : [])].join(', ');
  if (opts.ci === 'github')
    lines.push(
      `  add the repository secrets H2H_BASE_URL and ${KEY_ENV}, then commit ${commit} and ${INIT_FILES.github}`,
    );
  if (opts.ci === 'gitlab')
    lines.push(
      `  add the CI/CD variables H2H_BASE_URL and ${KEY_ENV} (masked), then commit ${commit} and ${INIT_FILES.gitlab}`,
    );
  io.out(lines.join('\n'));
}
