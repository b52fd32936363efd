// The pace of the table: events are shown one after another, a play staying on screen for the
// pace (about 600 ms) so a person sees it; later events wait in order and are never dropped.
// `flush()` shows what is queued at once (the viewer's turn, or a tap on a card).

const BEHIND_MS = 2500; // never fall further behind the stream than this at any pace

/** Runs `show(item, ms)` for each pushed item in order; `ms` is 0 for an item shown at once. */
export class Pacer {
  constructor({ pace, isPaced, show, onIdle }) {
    this.pace = pace; // () => ms per paced item (0: none)
    this.isPaced = isPaced; // (item) => whether it takes the pace (a play does)
    this.show = show; // (item, ms) => Promise (resolves when shown) or undefined
    this.onIdle = onIdle || (() => {});
    this.queue = [];
    this.running = false;
    this.finishing = null; // ends the item on screen early
  }

  /** How many items wait to be shown (the one on screen excepted). */
  get waiting() {
    return this.queue.length;
  }

  /** Whether anything is on screen or waiting. */
  get busy() {
    return this.running || this.queue.length > 0;
  }

  /** One more item, shown after those before it. */
  push(item) {
    this.queue.push(item);
    if (!this.running) this.run();
  }

  /** Show everything at once: the item on screen ends now, the rest are shown without pace. */
  flush() {
    this.flushing = true;
    if (this.finishing) this.finishing();
    if (!this.running) this.drain();
  }

  drain() {
    while (this.queue.length) this.show(this.queue.shift(), 0);
    this.flushing = false;
    this.onIdle();
  }

  async run() {
    this.running = true;
    try {
      while (this.queue.length) {
        if (this.flushing) {
          this.drain();
          break;
        }
        const item = this.queue.shift();
        const paced = this.queue.filter((i) => this.isPaced(i)).length + 1;
        const ms = this.isPaced(item) ? Math.min(this.pace(), Math.floor(BEHIND_MS / paced)) : 0;
        if (ms <= 0) {
          this.show(item, 0);
          continue;
        }
        await new Promise((resolve) => {
          const timer = setTimeout(done, ms);
          const cancel = this.show(item, ms);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.finishing = () => {
            if (cancel && typeof cancel.finish === "function") cancel.finish();
            done();
          };
        });
        this.finishing = null;
      }
    } finally {
      this.running = false;
      this.finishing = null;
      if (this.flushing) this.drain();
      else this.onIdle();
    }
  }
}
