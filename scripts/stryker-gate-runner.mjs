// StrykerJS's test runner for `npm run mutation` (stryker.config.json: "testRunner": "h2h-gate"): the gate, warm in
// one process per worker, its planned scenarios the tests. This file is only the plugin's shell, loaded by StrykerJS
// itself (no TypeScript there); the runner proper is scripts/mutant-gate.ts, imported from the sandbox StrykerJS
// runs the worker in (its working directory), so that the simulator it starts is the instrumented one (tsx, from
// "testRunnerNodeArgs", compiles it). Its import waits for the first run: a static mutant (code run as a module
// loads) must be active before the simulator's modules load, and StrykerJS gives each a fresh worker for it.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';

class H2hGateRunner {
  static inject = tokens(commonTokens.logger);

  constructor(log) {
    this.log = log;
  }

  capabilities() {
    // ES modules once imported stay: StrykerJS starts a new worker where a static mutant needs its modules reloaded.
    return { reloadEnvironment: false };
  }

  async runner(staticMutant) {
    if (!this.gate) {
      globalThis.__stryker__ ??= {};
      globalThis.__stryker__.activeMutant = staticMutant;
      const { GateRunner } = await import(pathToFileURL(join(process.cwd(), 'scripts/mutant-gate.ts')).href);
      this.gate = new GateRunner(this.log);
    }
    return this.gate;
  }

  async dryRun(options) {
    return (await this.runner()).dryRun(options.coverageAnalysis === 'perTest');
  }

  async mutantRun(options) {
    const staticMutant = options.mutantActivation === 'static' ? options.activeMutant.id : undefined;
    return (await this.runner(staticMutant)).mutantRun(options);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'h2h-gate', H2hGateRunner)];
