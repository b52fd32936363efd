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
    this.current = null; // the paced item on screen: { start, end, timer }
    this.arrived = new Map(); // when each waiting item was pushed
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
    this.arrived.set(item, performance.now());
    if (!this.running) this.run();
    else this.shortenCurrent();
  }

  /** How long each paced item may stay from `now` on so that every waiting one is shown at
   * most BEHIND_MS after it arrived: the items before a waiting one (the one on screen
   * included) share what is left of its time equally. */
  share(now) {
    let before = 1;
    let ms = Infinity;
    for (const item of this.queue) {
      if (!this.isPaced(item)) continue;
      const left = (this.arrived.get(item) ?? now) + BEHIND_MS - now;
      ms = Math.min(ms, left / before);
      before += 1;
    }
    return Math.max(0, Math.floor(ms));
  }

  /** The item on screen gives up time to what waits, so none waits more than BEHIND_MS. */
  shortenCurrent() {
    if (!this.finishing || !this.current) return;
    const now = performance.now();
    const end = now + this.share(now);
    if (end >= this.current.end) return; // it ends sooner anyway
    this.current.end = end;
    clearTimeout(this.current.timer);
    this.current.timer = setTimeout(this.finishing, end - now);
  }

  /** Show everything at once: the item on screen ends now, the rest are shown without pace. */
  flush() {
    this.flushing = true;
    if (this.finishing) this.finishing();
    if (!this.running) this.drain();
  }

  drain() {
    this.arrived.clear();
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
        this.arrived.delete(item);
        const ms = this.isPaced(item) ? Math.min(this.pace(), this.share(performance.now())) : 0;
        if (ms <= 0) {
          this.show(item, 0);
          continue;
        }
        await new Promise((resolve) => {
          const start = performance.now();
          const current = { start, end: start + ms, timer: setTimeout(done, ms) };
          this.current = current;
          const cancel = this.show(item, ms);
          function done() {
            clearTimeout(current.timer);
            resolve();
          }
          this.finishing = () => {
            if (cancel && typeof cancel.finish === "function") cancel.finish();
            done();
          };
        });
        this.finishing = null;
        this.current = null;
      }
    } finally {
      this.running = false;
      this.finishing = null;
      this.current = null;
      if (this.flushing) this.drain();
      else this.onIdle();
    }
  }
}
