// Principals as the admin page shows them, before an admin approves one: the key's fingerprint as
// OpenSSH prints it, the owner by name, pending ones first. Pure: tested under Node.

/**
 * The server's fingerprint (lower-case hex of SHA-256 over the public key blob) in the form
 * `ssh-keygen -l` and ssh print, "SHA256:" and unpadded base64, so an admin can compare it with the
 * key's owner's; null for anything that is not 64 hex digits.
 */
export function opensshFingerprint(hex) {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  let bytes = '';
  for (let i = 0; i < 64; i += 2) bytes += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return `SHA256:${btoa(bytes).replace(/=+$/, '')}`;
}

/**
 * The principal's owner as {name, id}: the name the server gave (ownerName), else the name of the
 * listed principal with that id (`byId`: principalId -> principal), else null (the id is all there
 * is); null without an owner.
 */
export function ownerLabel(principal, byId) {
  if (!principal || !principal.ownerId) return null;
  const listed = byId && byId.get(principal.ownerId);
  return { name: principal.ownerName || (listed && listed.displayName) || null, id: principal.ownerId };
}

/** Pending principals first (they wait for an admin), then by name. */
export function sortPrincipals(list) {
  return (list || []).slice().sort((a, b) => (a.status === 'pending' ? 0 : 1) - (b.status === 'pending' ? 0 : 1)
    || String(a.displayName).localeCompare(String(b.displayName)));
}
