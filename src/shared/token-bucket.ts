/**
 * A token bucket: `rate` tokens a second, at most `burst` held. The simulator's rate limit and the gate's own
 * throttle (`--rate-limit`) are both one of these.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    public rate: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.rate);
    this.last = t;
  }

  /** Changes the rate from now on (tokens held so far stay). */
  setRate(rate: number): void {
    this.refill();
    this.rate = rate;
  }

  /** Takes a token if one is there. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until a token will be there (0 when one is there now). */
  waitMs(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.rate) * 1000;
  }

  /** Waits until a token is there, then takes it. */
  async take(): Promise<void> {
    for (;;) {
      if (this.tryTake()) return;
      await new Promise((r) => setTimeout(r, Math.max(1, Math.ceil(this.waitMs()))));
    }
  }
}
