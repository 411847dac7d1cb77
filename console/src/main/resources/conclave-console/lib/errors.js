// The error banner's content: the last failed action's problem detail.
import { createStore } from './store.js';

export const lastError = createStore(null); // {title, detail, code, status} | null

export function showError(error, context) {
  if (!error) return;
  if (error.status === 401 && error.code !== 'token_wrong_purpose') return; // the login screen takes over
  const detail = error.detail || error.message || String(error);
  lastError.set({
    title: context || error.title || 'Request failed',
    detail,
    code: error.code || '',
    status: error.status || 0,
  });
}

export function clearError() {
  lastError.set(null);
}
