// #/admin (admins): principals (approve pending ones, knowing their key's fingerprint and their
// owner by name; see and revoke their tokens), bindings, and the tool packs, live from
// conclave.events.packs.
import { html } from '../lib/html.js';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import * as bus from '../lib/bus.js';
import { showError } from '../lib/errors.js';
import { useLiveLoad, useSubscription } from '../lib/live.js';
import { throttle } from '../lib/throttle.js';
import { opensshFingerprint, ownerLabel, sortPrincipals } from '../model/principals.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';

const PACK_EVENTS_MAX = 50;

function Tokens({ principalId }) {
  const [tokens, setTokens] = useState(null);
  const load = async () => {
    try {
      const res = await api.tokens(principalId);
      setTokens((res && res.tokens) || []);
    } catch (e) {
      showError(e, 'Could not list the tokens');
      setTokens([]);
    }
  };
  useEffect(() => {
    load();
  }, [principalId]);

  async function revoke(t) {
    if (!window.confirm(`Revoke token ${t.tokenId}? Streams and sessions opened with it end.`)) return;
    try {
      await api.revokeToken(t.tokenId);
      load();
    } catch (e) {
      showError(e, 'Could not revoke the token');
    }
  }

  if (tokens === null) return html`<p class="muted small">Loading tokens…</p>`;
  if (!tokens.length) return html`<p class="muted small" data-testid="tokens-empty">No tokens.</p>`;
  return html`<table class="table table-inner" data-testid="tokens">
    <thead><tr><th scope="col">Token</th><th scope="col">Purpose</th><th scope="col">Issued</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">State</th><th></th></tr></thead>
    <tbody>${tokens.map((t) => html`<tr key=${t.tokenId} data-testid="token-row" data-token-id=${t.tokenId}>
      <td class="mono">${t.tokenId}</td><td>${t.purpose}</td>
      <td><${RelTime} at=${t.issuedAt} /></td><td><${RelTime} at=${t.expiresAt} /></td><td><${RelTime} at=${t.lastUsedAt} /></td>
      <td>${t.revokedAt ? html`<span class="pill pill-warn">revoked <${RelTime} at=${t.revokedAt} /></span>`
        : Date.parse(t.expiresAt) < Date.now() ? html`<span class="pill">expired</span>` : html`<span class="pill pill-ok">valid</span>`}</td>
      <td>${t.revokedAt ? null : html`<button type="button" class="btn btn-small btn-danger-quiet" onClick=${() => revoke(t)}>Revoke</button>`}</td>
    </tr>`)}</tbody>
  </table>`;
}

/** The public key a principal signs with, as `ssh-keygen -l` prints it (the hex form on hover). */
function KeyFingerprint({ hex }) {
  const openssh = opensshFingerprint(hex);
  return html`<div class="small fingerprint" data-testid="principal-fingerprint" title=${`SHA-256 of the public key: ${hex}`}>
    key <span class="mono">${openssh || hex}</span></div>`;
}

function Owner({ owner }) {
  if (!owner) return null;
  return html`<div class="small muted" data-testid="principal-owner" title=${`owner id ${owner.id}`}>owner
    ${owner.name ? html` <span>${owner.name}</span>` : html` <span class="mono">${owner.id}</span>`}</div>`;
}

function Principals() {
  const [principals, setPrincipals] = useState(null);
  const [open, setOpen] = useState(null);
  const [busy, setBusy] = useState('');
  const load = async () => {
    try {
      const res = await api.principals();
      setPrincipals(sortPrincipals((res && res.principals) || []));
    } catch (e) {
      showError(e, 'Could not load the principals');
      setPrincipals((p) => p || []);
    }
  };
  useLiveLoad(load, []);

  async function approve(p) {
    setBusy(p.principalId);
    try {
      await api.approvePrincipal(p.principalId);
      setPrincipals((list) => list.map((x) => (x.principalId === p.principalId ? { ...x, status: 'approved' } : x)));
      load();
    } catch (e) {
      showError(e, `Could not approve ${p.displayName || p.principalId}`);
    } finally {
      setBusy('');
    }
  }

  const pending = principals ? principals.filter((p) => p.status === 'pending').length : 0;
  const byId = new Map((principals || []).map((p) => [p.principalId, p]));
  return html`<section class="card" aria-labelledby="principals-title">
    <h2 id="principals-title">Principals ${principals ? html`<span class="count">${principals.length}</span>` : null}
      ${pending ? html`<span class="pill pill-warn">${pending} pending</span>` : null}</h2>
    ${principals === null ? html`<p class="muted">Loading…</p>`
      : principals.length === 0 ? html`<${Empty} title="No principals yet" />`
      : html`<table class="table">
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Roles</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${principals.map((p) => html`
          <tr key=${p.principalId} data-testid="principal-row" data-principal-id=${p.principalId} data-status=${p.status}>
            <td>${p.displayName || html`<span class="muted">unnamed</span>`}<div class="mono muted small">${p.principalId}</div>
              ${p.fingerprint ? html`<${KeyFingerprint} hex=${p.fingerprint} />` : null}</td>
            <td>${p.type}</td>
            <td><span class=${`pill pill-principal-${p.status}`}>${p.status}</span></td>
            <td>${(p.roles || []).join(', ') || html`<span class="muted">—</span>`}<${Owner} owner=${ownerLabel(p, byId)} /></td>
            <td><${RelTime} at=${p.createdAt} /></td>
            <td class="actions-cell">
              ${p.status === 'pending' ? html`<button type="button" class="btn btn-small btn-primary" data-testid="approve-principal"
                disabled=${busy === p.principalId} onClick=${() => approve(p)}>Approve</button>` : null}
              <button type="button" class="btn btn-small btn-quiet" data-testid="show-tokens" aria-expanded=${open === p.principalId}
                onClick=${() => setOpen(open === p.principalId ? null : p.principalId)}>${open === p.principalId ? 'Hide tokens' : 'Tokens'}</button>
            </td>
          </tr>
          ${open === p.principalId ? html`<tr key=${`${p.principalId}-tokens`} class="subrow"><td colspan="6"><${Tokens} principalId=${p.principalId} /></td></tr>` : null}`)}
        </tbody>
      </table>`}
  </section>`;
}

function Bindings() {
  const [bindings, setBindings] = useState(null);
  useLiveLoad(async () => {
    try {
      const res = await api.bindings();
      setBindings((res && res.bindings) || []);
    } catch (e) {
      showError(e, 'Could not load the bindings');
      setBindings((b) => b || []);
    }
  }, []);
  return html`<section class="card" aria-labelledby="bindings-title">
    <h2 id="bindings-title">Bindings ${bindings ? html`<span class="count">${bindings.length}</span>` : null}</h2>
    ${bindings === null ? html`<p class="muted">Loading…</p>`
      : bindings.length === 0 ? html`<${Empty} title="No bindings">Bindings route a frontend's channel (<code>frontend:channel</code>) to an agent; create them with AdminService.<//>`
      : html`<table class="table">
        <thead><tr><th scope="col">Frontend</th><th scope="col">Channel</th><th scope="col">Agent</th><th scope="col">Created</th></tr></thead>
        <tbody>${bindings.map((b) => html`<tr key=${b.id} data-testid="binding-row" data-binding-id=${b.id}>
          <td>${b.frontend}</td><td class="mono">${b.channelId}</td><td class="mono">${b.agentId}</td><td><${RelTime} at=${b.createdAt} /></td>
        </tr>`)}</tbody>
      </table>`}
  </section>`;
}

function Packs() {
  const [packs, setPacks] = useState(null);
  const [events, setEvents] = useState([]);
  const [ops] = useState(() => {
    const load = async () => {
      try {
        const res = await api.packs();
        setPacks({ live: (res && res.packs) || [], builtins: (res && res.builtins) || [] });
      } catch (e) {
        showError(e, 'Could not load the packs');
        setPacks((p) => p || { live: [], builtins: [] });
      }
    };
    return { load, soon: throttle(load, 500) };
  });
  useLiveLoad(ops.load, []);
  useEffect(() => () => ops.soon.cancel(), []);
  useSubscription(bus.ADDRESSES.packs, (ev) => {
    if (!ev || typeof ev !== 'object') return;
    setEvents((list) => [ev, ...list].slice(0, PACK_EVENTS_MAX));
    ops.soon();
  });

  return html`<section class="card" aria-labelledby="packs-title">
    <h2 id="packs-title">Tool packs ${packs ? html`<span class="count">${packs.live.length}</span>` : null}</h2>
    ${packs === null ? html`<p class="muted">Loading…</p>` : html`
      ${packs.live.length === 0 ? html`<${Empty} title="No packs connected">Packs register over coven.PackService; their tools appear here live.<//>`
        : html`<table class="table">
          <thead><tr><th scope="col">Pack</th><th scope="col">Version</th><th scope="col">Node</th><th scope="col">Tools</th><th scope="col">Registered</th></tr></thead>
          <tbody>${packs.live.map((p) => html`<tr key=${`${p.packId}@${p.node}`} data-testid="pack-row" data-pack-id=${p.packId}>
            <td class="mono">${p.packId}</td><td>${p.version || '—'}</td><td class="mono">${p.node}</td>
            <td><span class="tags">${(p.tools || []).map((t) => html`<span class="tag mono">${t}</span>`)}</span></td>
            <td><${RelTime} at=${p.registeredAt} /></td>
          </tr>`)}</tbody>
        </table>`}
      ${packs.builtins.length ? html`<h3>Built-in packs</h3><table class="table">
        <thead><tr><th scope="col">Pack</th><th scope="col">Capability</th><th scope="col">Tools</th></tr></thead>
        <tbody>${packs.builtins.map((p) => html`<tr key=${p.packId}><td class="mono">${p.packId}</td><td>${p.capability}</td>
          <td><span class="tags">${(p.tools || []).map((t) => html`<span class="tag mono">${t}</span>`)}</span></td></tr>`)}</tbody>
      </table>` : null}`}
    <h3>Recent pack events</h3>
    ${events.length === 0 ? html`<p class="muted small">None since this page opened.</p>`
      : html`<ul class="plain" data-testid="pack-events">${events.map((e, i) => html`<li key=${i}>
          <span class=${`pill ${e.event === 'registered' ? 'pill-ok' : 'pill-warn'}`}>${e.event}</span>
          <span class="mono">${e.packId}</span>${e.version ? ` ${e.version}` : ''} on <span class="mono">${e.node}</span>
          ${(e.tools || []).length ? ` · ${(e.tools || []).length} tools` : ''}
          ${(e.rejected || []).length ? html` · <span class="warn">rejected: ${(e.rejected || []).join(', ')}</span>` : null}
          ${e.reason ? ` · ${e.reason}` : ''} · <${RelTime} at=${e.at} /></li>`)}</ul>`}
  </section>`;
}

export function Admin() {
  return html`<section class="view" aria-labelledby="admin-title">
    <div class="view-head"><h1 id="admin-title">Administration</h1></div>
    <${Principals} />
    <${Bindings} />
    <${Packs} />
  </section>`;
}
