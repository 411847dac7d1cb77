// The loaded part of one conversation's ledger: a contiguous run of events by seq (the ledger's
// sequence numbers are consecutive per conversation), at most `max` of them. Pure: tested under Node.
//
// Following live, the oldest events are dropped past `max` (hasOlder: they can be loaded again).
// After the reader loads older events past `max`, the newest are dropped instead and the log is
// `detached`: live events are no longer appended until it is reset to the latest page.

export const DEFAULT_MAX = 1000;

function sortedUnique(events) {
  const bySeq = new Map();
  for (const e of events || []) {
    if (e && Number.isFinite(Number(e.seq))) bySeq.set(Number(e.seq), { seq: Number(e.seq), event: e.event || {} });
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export class ConversationLog {
  constructor(max = DEFAULT_MAX) {
    this.max = max;
    this.entries = [];
    this.hasOlder = false;
    this.detached = false;
    this.floor = 0; // the newest seq known while no entry is loaded
  }

  get newest() {
    return this.entries.length ? this.entries[this.entries.length - 1].seq : this.floor;
  }

  get oldest() {
    return this.entries.length ? this.entries[0].seq : this.floor + 1;
  }

  /** Replaces everything with the latest page (GET …/events?limit=n). */
  reset(events, hasMore) {
    this.entries = sortedUnique(events);
    this.hasOlder = Boolean(hasMore);
    this.detached = false;
    this.floor = 0;
    this.trimOldest();
  }

  /**
   * Adds an older page (GET …?before=<before>): returns how many events were added. A page asked
   * for before another oldest event than the log's current one (live events trimmed the log while
   * it loaded) would leave a hole, and is dropped.
   */
  prepend(events, hasMore, before = this.oldest) {
    const oldest = this.oldest;
    if (before !== oldest) return 0;
    const older = sortedUnique(events).filter((e) => e.seq < oldest);
    this.entries = older.concat(this.entries);
    this.hasOlder = Boolean(hasMore);
    if (this.entries.length > this.max) {
      this.entries.length = this.max;
      this.detached = true;
    }
    return older.length;
  }

  /**
   * Adds newer events (a catch-up page, or live events): those after `newest`, in order. Returns
   * how many were added. Ignored while detached.
   */
  append(events) {
    if (this.detached) return 0;
    const newest = this.newest;
    const newer = sortedUnique(events).filter((e) => e.seq > newest);
    if (!newer.length) return 0;
    for (const e of newer) this.entries.push(e);
    this.trimOldest();
    return newer.length;
  }

  /** How a live event relates to the log: 'duplicate', 'next' (append it), 'gap' (catch up first), 'detached'. */
  classify(seq) {
    if (seq <= this.newest) return 'duplicate';
    if (this.detached) return 'detached';
    return seq === this.newest + 1 ? 'next' : 'gap';
  }

  trimOldest() {
    const extra = this.entries.length - this.max;
    if (extra > 0) {
      this.entries.splice(0, extra);
      this.hasOlder = true;
    }
  }
}
