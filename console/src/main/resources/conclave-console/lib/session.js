// The login session (a cookie the page never sees) and its lifecycle: checking it on load,
// logging in and out, and ending it when the server answers 401. The live connection exists only
// while a session does.
import { api, onUnauthorized } from './api.js';
import * as bus from './bus.js';
import { clearError } from './errors.js';
import { createStore } from './store.js';

/** {status: 'checking'|'anonymous'|'active', session?, expired?, checkError?} */
export const auth = createStore({ status: 'checking' });

function activate(session) {
  auth.set({ status: 'active', session });
  bus.connect({ onReconnect: verify, onUnauthenticated: verify });
}

function end(error) {
  bus.disconnect();
  auth.set({ status: 'anonymous', expired: Boolean(error) });
}

/** Re-reads the session (after a reconnect): a revoked token leads back to the login screen. */
export async function verify() {
  try {
    const session = await api.session();
    if (auth.get().status === 'active') auth.set({ status: 'active', session });
  } catch (e) {
    if (e.status === 401) end(e);
  }
}

export async function start() {
  onUnauthorized((e) => {
    if (auth.get().status === 'active') end(e);
  });
  try {
    activate(await api.session());
  } catch (e) {
    // 401: not logged in; anything else: the check failed, and logging in says why if it still does
    auth.set({ status: 'anonymous', checkError: e.status === 401 ? null : e });
  }
}

/** Exchanges a token for the session cookie; throws ApiError with the server's detail. */
export async function login(token) {
  const session = (await api.login(token)) || (await api.session());
  clearError();
  activate(session);
}

export async function logout() {
  try {
    await api.logout();
  } finally {
    clearError();
    end();
  }
}

export const isAdmin = () => Boolean(auth.get().session && auth.get().session.admin);

/** A session opened with a 'bridge' token follows and reads, but may not act. */
export const isReadOnly = () => Boolean(auth.get().session && auth.get().session.purpose === 'bridge');
