import { ApiError } from "../http/errors";

/**
 * Slow hashes (scrypt: ~40 ms of a thread of Node's small pool each) are what a client can turn
 * against the service: a burst of made-up passwords would keep the pool busy and make every
 * other caller's check wait behind it. So they run through this queue: at most `concurrency` at
 * once, and the next to run is taken from each waiting client in turn (round robin), so that
 * one client's burst delays its own checks, not another's. A client with `perClient` checks
 * already waiting is refused at once (429).
 */
export class SlowHashQueue {
  private running = 0;
  private finished = 0;
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly concurrency: number,
    private readonly perClient: number,
  ) {}

  /** Runs `task` for `client` (its address) when its turn comes. */
  async run<T>(client: string, task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await this.turn(client);
    else this.running += 1;
    try {
      return await task();
    } finally {
      this.finished += 1;
      this.next();
    }
  }

  /** How many slow hashes run, wait, and have run since the process started. */
  stats(): { running: number; waiting: number; finished: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { running: this.running, waiting, finished: this.finished };
  }

  private turn(client: string): Promise<void> {
    const queue = this.waiting.get(client) ?? [];
    if (queue.length >= this.perClient) {
      throw new ApiError("rest_too_many_requests", {}, {}, undefined, { "Retry-After": "1" });
    }
    return new Promise((start) => {
      queue.push(start);
      this.waiting.set(client, queue);
    });
  }

  /** Hands the freed slot to the first client in line, which then goes to the end of the line. */
  private next(): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.running -= 1;
      return;
    }
    const [client, queue] = first.value;
    const start = queue.shift()!;
    this.waiting.delete(client);
    if (queue.length > 0) this.waiting.set(client, queue);
    start();
  }
}

/**
 * The queue of the process. Two at once: scrypt runs in libuv's pool of four threads, which file
 * and DNS work share.
 */
export const slowHashes = new SlowHashQueue(2, 16);
