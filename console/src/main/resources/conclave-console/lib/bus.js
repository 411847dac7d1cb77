// The live connection: the official Vert.x event-bus client (window.EventBus, loaded as a classic
// script with SockJS) at /eventbus. The page only subscribes. This module keeps the set of wanted
// subscriptions and registers all of them on every (re)open, since the client forgets its
// handlers when its socket closes; views learn of each open to catch up over HTTP.
import { createStore } from './store.js';

/** 'offline' (not connected, or logged out), 'live' (open), 'reconnecting' (closed, retrying). */
export const connState = createStore('offline');

const subscriptions = new Map(); // address -> {handlers: Set, rejectHandlers: Set, rejectable}
const openListeners = new Set();
let eb = null;

function isOpen() {
  return eb !== null && eb.state === window.EventBus.OPEN;
}

let unauthenticatedHandler = () => {};

/** The bridge's acknowledgement of a registration: {"subscribed": true}, not an event. */
const isSubscribedMarker = (body) => body !== null && typeof body === 'object' && body.subscribed === true
  && Object.keys(body).length === 1;

function reject(sub, err) {
  if (err && Number(err.failureCode) === 401) unauthenticatedHandler();
  for (const fn of sub.rejectHandlers) fn(err);
}

function dispatch(address, err, message) {
  const sub = subscriptions.get(address);
  if (!sub) return;
  if (err) {
    // an error frame addressed to a registration is the bridge refusing it
    reject(sub, err);
    return;
  }
  if (isSubscribedMarker(message.body)) {
    for (const fn of sub.subscribedHandlers) fn();
    return;
  }
  for (const fn of sub.handlers) {
    try {
      fn(message.body, message);
    } catch (e) {
      console.error(`handler for ${address} failed`, e);
    }
  }
}

function register(address) {
  const sub = subscriptions.get(address);
  sub.callback = (err, message) => dispatch(address, err, message);
  eb.registerHandler(address, sub.callback);
}

/**
 * An error frame without an address: the bridge's refusal of a `register`
 * ({"type": "err", "body": "rejected"}) does not say which one. Every console user may follow
 * presence and swarm events, and packs are followed by admins only, so a refusal belongs to the
 * subscriptions marked rejectable (conversations).
 */
function unaddressedError(frame) {
  const body = frame && (frame.body || frame.message || frame.failureType);
  if (body === 'rejected') {
    const rejectable = [...subscriptions.values()].filter((s) => s.rejectable);
    const targets = rejectable.length ? rejectable : [...subscriptions.values()];
    for (const sub of targets) reject(sub, frame);
    return;
  }
  console.warn('event bus error', frame);
}

/**
 * Opens the connection (reconnecting by itself until disconnect()). `onReconnect` runs after each
 * reconnect, `onUnauthenticated` when the bridge refuses a registration for want of credentials.
 */
export function connect({ onReconnect, onUnauthenticated } = {}) {
  if (eb) return;
  unauthenticatedHandler = onUnauthenticated || (() => {});
  if (typeof window.EventBus !== 'function') {
    console.error('vertx-eventbus.js is not loaded: no live updates');
    return;
  }
  const bus = new window.EventBus('/eventbus');
  eb = bus;
  bus.enableReconnect(true);
  bus.onopen = () => {
    if (eb !== bus) return;
    connState.set('live');
    for (const address of subscriptions.keys()) register(address);
    for (const fn of [...openListeners]) fn();
  };
  bus.onreconnect = () => {
    if (eb === bus && onReconnect) onReconnect();
  };
  bus.onclose = () => {
    if (eb !== bus) return;
    for (const sub of subscriptions.values()) sub.callback = null;
    connState.set('reconnecting');
  };
  bus.onerror = (frame) => {
    if (eb === bus) unaddressedError(frame);
  };
}

/** Closes the connection for good (logout, or the session ended). */
export function disconnect() {
  const bus = eb;
  eb = null;
  connState.set('offline');
  if (bus) {
    try {
      bus.close();
    } catch {
      // not open yet: enableReconnect(false) inside close() already stopped it
    }
  }
}

/**
 * Follows an address while the returned function is not called. `onMessage(body, message)` gets
 * each message; `onReject(err)` the bridge's refusal; `onSubscribed()` the bridge's word that the
 * subscription is live (Conclave's bridge sends {"subscribed": true}; others may not). `rejectable`
 * marks an address the caller may be refused (see unaddressedError).
 */
export function subscribe(address, onMessage, { onReject, onSubscribed, rejectable = false } = {}) {
  let sub = subscriptions.get(address);
  const fresh = !sub;
  if (fresh) {
    sub = { handlers: new Set(), rejectHandlers: new Set(), subscribedHandlers: new Set(), rejectable, callback: null };
    subscriptions.set(address, sub);
  }
  sub.handlers.add(onMessage);
  if (onReject) sub.rejectHandlers.add(onReject);
  if (onSubscribed) sub.subscribedHandlers.add(onSubscribed);
  if (fresh && isOpen()) register(address);
  return () => {
    sub.handlers.delete(onMessage);
    if (onReject) sub.rejectHandlers.delete(onReject);
    if (onSubscribed) sub.subscribedHandlers.delete(onSubscribed);
    if (sub.handlers.size > 0 || subscriptions.get(address) !== sub) return;
    subscriptions.delete(address);
    if (isOpen() && sub.callback) {
      try {
        eb.unregisterHandler(address, sub.callback);
      } catch (e) {
        console.warn(`could not unregister ${address}`, e);
      }
    }
  };
}

/** Calls fn on every open of the connection (the first one and each reconnect). */
export function onOpen(fn) {
  openListeners.add(fn);
  return () => openListeners.delete(fn);
}

export const ADDRESSES = {
  presence: 'conclave.events.presence',
  swarm: 'conclave.events.swarm',
  packs: 'conclave.events.packs',
  conversation: (key) => `conclave.events.conversation.${key}`,
};
