import cron, { type ScheduledTask } from 'node-cron';
import type { ProbeTarget } from './config.js';
import type { LogLine } from './log.js';
import type { ProbeMetrics } from './metrics.js';

/**
 * One node-cron schedule per target, each round starting at its slot plus the target's jitter: how late it
 * started is exported, so a busy process shows instead of silently skewing every timing; a round still running
 * when its next slot comes is counted, never stacked.
 */
export class Schedule {
  private readonly tasks: ScheduledTask[] = [];
  private readonly waiting = new Set<NodeJS.Timeout>();

  constructor(
    private readonly metrics: ProbeMetrics,
    private readonly log: LogLine,
    private readonly round: (t: ProbeTarget) => Promise<unknown>,
  ) {}

  /** A slot of one target: its round starts at the slot plus the target's jitter. */
  private async slot(t: ProbeTarget, slot: Date): Promise<void> {
    const due = slot.getTime() + t.jitterMs;
    const wait = due - Date.now();
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiting.delete(timer);
          resolve();
        }, wait);
        this.waiting.add(timer);
      });
      if (this.tasks.length === 0) return; // stopped while waiting
    }
    this.metrics.recordLateness(t.name, Math.max(0, Date.now() - due) / 1000);
    await this.round(t);
  }

  start(targets: readonly ProbeTarget[]): void {
    const logger = {
      info: () => undefined,
      debug: () => undefined,
      warn: (m: string) => this.log({ level: 'warn', msg: 'schedule', detail: String(m) }),
      error: (m: string | Error) =>
        this.log({ level: 'error', msg: 'schedule', detail: m instanceof Error ? m.message : String(m) }),
    };
    for (const t of targets) {
      const task = cron.schedule(t.schedule, (ctx) => this.slot(t, ctx.date), {
        name: `h2h-probe-${t.name}`,
        noOverlap: true,
        logger,
      });
      task.on('execution:overlap', () => this.metrics.recordOverlap(t.name));
      task.on('execution:missed', () => this.metrics.recordMissed(t.name));
      task.on('execution:failed', (ctx) =>
        this.log({
          level: 'error',
          msg: 'probe round failed',
          target: t.name,
          detail: ctx.execution?.error?.message ?? '',
        }),
      );
      this.tasks.push(task);
    }
  }

  /** Stops every schedule and the rounds still waiting for their slot. */
  async stop(): Promise<void> {
    const tasks = this.tasks.splice(0);
    for (const task of tasks) {
      await task.stop();
      await task.destroy();
    }
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
  }
}
