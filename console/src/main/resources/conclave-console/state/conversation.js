// One open conversation: its ledger loaded over HTTP and followed live over the bridge, with no
// event missed or shown twice. Live events carry the ledger's seq; a jump in seq, and every
// (re)open of the connection, is filled from GET …/events?after=<newest seq>.
import { api } from '../lib/api.js';
import * as bus from '../lib/bus.js';
import { showError } from '../lib/errors.js';
import { ConversationLog } from '../model/ledger.js';

export const PAGE = 200;
const CATCH_UP_PAGE = 500;

export class ConversationController {
  constructor(key, onChange) {
    this.key = key;
    this.onChange = onChange;
    this.log = new ConversationLog();
    this.status = 'loading'; // loading | ready | forbidden | error
    this.problem = null; // the ApiError that stopped loading
    this.rejected = null; // the bridge's refusal of the subscription
    this.loadingOlder = false;
    this.newerWhileDetached = 0;
    this.loaded = false;
    this.loadingLatest = false;
    this.catching = false;
    this.catchAgain = false;
    this.pending = new Map(); // live events held while the log is being (re)loaded: seq -> entry
    this.catchUpAfterLoad = false;
    this.timer = null;
    this.stopped = false;
  }

  start() {
    this.unsubscribe = bus.subscribe(bus.ADDRESSES.conversation(this.key), (body) => this.onLive(body), {
      rejectable: true,
      onReject: (err) => {
        this.rejected = err || { message: 'rejected' };
        this.changed();
      },
      // live from now on: read what was committed while the subscription was being set up
      onSubscribed: () => {
        if (this.loaded && !this.loadingLatest) this.catchUp();
        else this.catchUpAfterLoad = true;
      },
    });
    this.offOpen = bus.onOpen(() => this.resync());
    this.loadLatest();
  }

  stop() {
    this.stopped = true;
    if (this.unsubscribe) this.unsubscribe();
    if (this.offOpen) this.offOpen();
    if (this.timer) clearTimeout(this.timer);
  }

  /** Coalesces re-renders: a burst of streamed chunks renders once per frame or so. */
  changed() {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.onChange();
    }, 16);
  }

  fail(e, context) {
    if (e.status === 403 || e.status === 404) {
      this.status = 'forbidden';
      this.problem = e;
    } else if (!this.loaded) {
      this.status = 'error';
      this.problem = e;
      showError(e, context);
    } else {
      showError(e, context);
    }
  }

  /** The latest page: on start, and to jump back to live after reading far back. */
  async loadLatest() {
    if (this.loadingLatest) return;
    this.loadingLatest = true;
    try {
      const res = await api.events(this.key, { limit: PAGE });
      if (this.stopped) return;
      this.log.reset(res.events, res.hasMore);
      this.loaded = true;
      this.status = 'ready';
      this.problem = null;
      this.newerWhileDetached = 0;
      this.loadingLatest = false;
      this.applyPending();
      if (this.catchUpAfterLoad) {
        this.catchUpAfterLoad = false;
        this.catchUp();
      }
    } catch (e) {
      this.loadingLatest = false;
      this.fail(e, 'Could not load the conversation');
    }
    this.changed();
  }

  onLive(body) {
    if (!body || !Number.isFinite(Number(body.seq))) return;
    const entry = { seq: Number(body.seq), event: body.event || {} };
    if (!this.loaded || this.loadingLatest || this.catching) {
      this.pending.set(entry.seq, entry);
      return;
    }
    switch (this.log.classify(entry.seq)) {
      case 'next':
        this.log.append([entry]);
        this.changed();
        break;
      case 'gap':
        this.pending.set(entry.seq, entry);
        this.catchUp();
        break;
      case 'detached':
        this.newerWhileDetached++;
        this.changed();
        break;
      default: // a duplicate: already shown
    }
  }

  /** Adds the held live events that follow the log; a jump among them is caught up first. */
  applyPending() {
    if (!this.pending.size) return;
    const held = [...this.pending.values()].sort((a, b) => a.seq - b.seq);
    this.pending.clear();
    if (this.log.detached) {
      this.newerWhileDetached += held.filter((e) => e.seq > this.log.newest).length;
      return;
    }
    const fresh = held.filter((e) => e.seq > this.log.newest);
    if (fresh.length && fresh[0].seq > this.log.newest + 1) {
      for (const e of fresh) this.pending.set(e.seq, e);
      this.catchUp();
      return;
    }
    this.log.append(fresh);
  }

  /** Reads what was missed (after the newest event shown), page by page, then the held live events. */
  async catchUp() {
    if (this.catching) {
      this.catchAgain = true;
      return;
    }
    if (!this.loaded || this.log.detached) return;
    this.catching = true;
    try {
      for (let pages = 0; pages < 100; pages++) {
        const res = await api.events(this.key, { after: this.log.newest, limit: CATCH_UP_PAGE });
        if (this.stopped) return;
        this.log.append(res.events);
        this.changed();
        if (!res.hasMore || !(res.events || []).length) break;
      }
      // whatever is still held follows the ledger's end (a jump left now cannot be filled)
      const held = [...this.pending.values()].sort((a, b) => a.seq - b.seq);
      this.pending.clear();
      this.log.append(held);
    } catch (e) {
      this.fail(e, 'Could not catch up with the conversation');
    } finally {
      this.catching = false;
      this.changed();
    }
    if (this.catchAgain) {
      this.catchAgain = false;
      this.catchUp();
    }
  }

  /** The connection (re)opened: read what was published while it was down. */
  resync() {
    if (this.stopped) return;
    if (this.status === 'forbidden') {
      this.rejected = null;
      this.loadLatest();
    } else if (!this.loaded) {
      this.loadLatest();
    } else if (!this.log.detached) {
      this.catchUp();
    }
  }

  async loadOlder() {
    if (this.loadingOlder || !this.log.hasOlder || !this.loaded) return 0;
    this.loadingOlder = true;
    this.changed();
    let added = 0;
    try {
      const before = this.log.oldest;
      const res = await api.events(this.key, { before, limit: PAGE });
      if (this.stopped) return 0;
      added = this.log.prepend(res.events, res.hasMore, before);
    } catch (e) {
      showError(e, 'Could not load older events');
    } finally {
      this.loadingOlder = false;
      this.changed();
    }
    return added;
  }
}
