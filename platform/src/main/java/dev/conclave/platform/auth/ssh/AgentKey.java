package dev.conclave.platform.auth.ssh;

import java.security.PublicKey;
import java.util.Optional;

/**
 * An agent's SSH public key as parsed from {@code x-ssh-pubkey}: its type ({@code ssh-ed25519} …),
 * the Java key, the SSH key blob, the fingerprint (lower-case hex of SHA-256 over the blob, the
 * format of {@code auth.principals.pubkey_fp} and of coven-gateway) and the comment, if any.
 */
public record AgentKey(String type, PublicKey key, byte[] blob, String fingerprint, Optional<String> comment) {
}
