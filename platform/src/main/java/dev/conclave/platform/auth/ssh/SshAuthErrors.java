package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;

import java.util.UUID;

/** Every failure of SSH-key agent authentication ({@code x-ssh-*} headers), defined once. */
public final class SshAuthErrors {

  static final String HEADERS = "x-ssh-pubkey, x-ssh-signature, x-ssh-timestamp and x-ssh-nonce";

  private SshAuthErrors() {
  }

  static ConclaveException missingHeader(String header) {
    return unauthenticated("ssh_header_missing", header + " is missing; SSH agent authentication needs " + HEADERS);
  }

  static ConclaveException repeatedHeader(String header, int times) {
    return unauthenticated("ssh_header_repeated", header + " was sent " + times + " times; each of " + HEADERS + " is sent exactly once");
  }

  static ConclaveException badTimestamp(String value) {
    return unauthenticated("ssh_timestamp_invalid", "x-ssh-timestamp must be unix seconds written in decimal digits only, "
      + "with no sign, space or leading zero (as signed), got '" + shorten(value) + "'");
  }

  static ConclaveException expired(long ageSeconds, long maxSeconds) {
    return unauthenticated("ssh_signature_expired", "the signature is too old: x-ssh-timestamp is " + ageSeconds
      + " s in the past and at most " + maxSeconds + " s are accepted; sign a fresh timestamp for every call");
  }

  static ConclaveException inFuture(long aheadSeconds, long maxSeconds) {
    return unauthenticated("ssh_timestamp_in_future", "x-ssh-timestamp is " + aheadSeconds + " s in the future and at most "
      + maxSeconds + " s are accepted; check the agent's clock");
  }

  static ConclaveException badNonce(int maxLength) {
    return unauthenticated("ssh_nonce_invalid", "x-ssh-nonce must be 1 to " + maxLength + " printable ASCII characters");
  }

  static ConclaveException badPublicKey(String reason) {
    return unauthenticated("ssh_pubkey_invalid", "x-ssh-pubkey is not an OpenSSH public key such as 'ssh-ed25519 AAAA… comment': " + reason);
  }

  static ConclaveException unsupportedKey(String what) {
    return unauthenticated("ssh_key_unsupported", what + "; accepted are ssh-ed25519, ecdsa-sha2-nistp256/384/521 and ssh-rsa ("
      + SshSignatures.MIN_RSA_BITS + " to " + SshSignatures.MAX_RSA_BITS + " bits, signed with rsa-sha2-256 or rsa-sha2-512)");
  }

  static ConclaveException badSignatureEncoding(String reason) {
    return unauthenticated("ssh_signature_malformed",
      "x-ssh-signature must be the base64 of an SSH signature (string format, string blob): " + reason);
  }

  static ConclaveException refusedAlgorithm(String format, String keyType, String accepted) {
    return unauthenticated("ssh_signature_algorithm_refused", "a '" + shorten(format) + "' signature is not accepted for a " + keyType
      + " key; sign with " + accepted);
  }

  static ConclaveException badSignature() {
    return unauthenticated("ssh_signature_invalid",
      "the signature does not verify: x-ssh-signature must sign '<x-ssh-timestamp>|<x-ssh-nonce>' with the key in x-ssh-pubkey");
  }

  static ConclaveException nonceReused() {
    return unauthenticated("ssh_nonce_reused",
      "this x-ssh-nonce was already used with this key (a replay?); every call needs a fresh nonce and signature");
  }

  static ConclaveException unknownKey(String fingerprint) {
    return unauthenticated("ssh_key_unknown", "unknown key: no agent principal has the key with fingerprint " + fingerprint
      + "; an admin registers it (AdminService.CreatePrincipal with pubkey or pubkey_fp)");
  }

  static ConclaveException newKeysLimit(int perHour) {
    return new ConclaveException(ErrorKind.RATE_LIMITED, "ssh_new_keys_limit", "this address has registered " + perHour
      + " unknown SSH keys within the hour, the most it may (CONCLAVE_SSH_NEW_KEYS_PER_HOUR); try again later, or have an admin register "
      + "the key (AdminService.CreatePrincipal with pubkey or pubkey_fp)");
  }

  static ConclaveException pendingLimit(int max) {
    return new ConclaveException(ErrorKind.RATE_LIMITED, "ssh_pending_limit", max
      + " agent principals made from unknown SSH keys already wait for an admin, the most there may be (CONCLAVE_SSH_PENDING_MAX); "
      + "an admin approves or deletes some, or registers this key (AdminService.CreatePrincipal with pubkey or pubkey_fp)");
  }

  static ConclaveException pending(UUID principalId, boolean justCreated) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "ssh_principal_pending",
      (justCreated ? "this key is new: it was registered as agent principal " + principalId + ", status pending; "
        : "agent principal " + principalId + " of this key is pending; ")
        + "an admin must approve principal " + principalId + " (POST /api/v1/gateway/principals/" + principalId + "/approve)");
  }

  static ConclaveException revoked(UUID principalId) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "ssh_principal_revoked",
      "agent principal " + principalId + " of this key is revoked");
  }

  private static ConclaveException unauthenticated(String code, String detail) {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, code, detail);
  }

  /** Client-sent text echoed in a message stays short. */
  private static String shorten(String value) {
    return dev.conclave.platform.validation.TextRules.echo(value.length() <= 40 ? value : value.substring(0, 40) + "…");
  }
}
