// A shared clock for relative times: one timer for the whole page.
import { createStore, useStore } from '../lib/store.js';

export const now = createStore(Date.now());
setInterval(() => now.set(Date.now()), 15000);

export const useNow = () => useStore(now);
