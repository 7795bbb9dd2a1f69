/**
 * One read shared by the callers that ask for it together, each given a read that began after it
 * asked: never one already under way, which may have started before a commit the caller follows
 * (a write it made, or saw answered). Callers that ask while a read is under way share the next
 * one, which starts when it ends; so under load there is one read in flight and one waiting, whatever
 * the number of callers, and a caller waits at most for the end of one read and the whole of another.
 */
export class NextRead<T> {
  private waiting: Promise<T> | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.waiting) return this.waiting;
    const next = this.running
      .catch(() => undefined)
      .then(() => {
        // Started: whoever asks from now on waits for the read after this one.
        this.waiting = null;
        return this.read();
      });
    this.waiting = next;
    this.running = next;
    return next;
  }
}
