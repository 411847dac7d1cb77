// Hooks for views that follow something live: load over HTTP on mount and on every (re)open of the
// connection (so nothing published while it was down is missed), and subscribe to addresses.
import { useEffect, useRef } from 'preact/hooks';
import * as bus from './bus.js';

/** Runs load() now and after every (re)open of the live connection, while mounted. */
export function useLiveLoad(load, deps) {
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    latest.current();
    return bus.onOpen(() => latest.current());
  }, deps);
}

/** Follows `address` while mounted (and while it is not null); `onMessage(body)`. */
export function useSubscription(address, onMessage, options = {}) {
  const latest = useRef(onMessage);
  latest.current = onMessage;
  const reject = useRef(options.onReject);
  reject.current = options.onReject;
  useEffect(() => {
    if (!address) return undefined;
    return bus.subscribe(address, (body) => latest.current(body), {
      rejectable: Boolean(options.rejectable),
      onReject: (err) => reject.current && reject.current(err),
    });
  }, [address]);
}
