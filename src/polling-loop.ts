/**
 * Background work done in rounds, by every process (webhook deliveries, import runs): the next
 * round at once while rounds find work, else after `pollMs`; a round that throws is reported and
 * the loop goes on. Stopping waits for the round under way. Its timer keeps no process alive.
 */
export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;

  constructor(
    /** One round; whether it found work. */
    private readonly work: () => Promise<boolean>,
    private readonly pollMs: () => number,
    private readonly failed: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking for work and waits for the round under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.round;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.round = this.work().then(
        (busy) => this.schedule(busy ? 0 : this.pollMs()),
        (err: unknown) => {
          this.failed(err);
          this.schedule(this.pollMs());
        },
      );
    }, delayMs);
    this.timer.unref();
  }
}
