package dev.conclave.platform.auth.ssh;

import java.util.Locale;

/**
 * What an SSH-signed agent call with a key no agent principal has gets ({@code CONCLAVE_SSH_UNKNOWN_KEYS};
 * the configuration validates the word, {@code NodeSettings.UNKNOWN_KEY_POLICIES}).
 */
public enum UnknownKeyPolicy {
  /** Refused with UNAUTHENTICATED; nothing is written. */
  REJECT,
  /** A pending agent principal with the key is created; the call is refused until an admin approves it. */
  PENDING,
  /**
   * An approved agent principal with the key is created and the call goes on. Anyone who can reach
   * the gRPC port can then act as an agent (with no roles): only for closed networks and trials.
   */
  APPROVE;

  /** The policy named by a configuration word: reject, pending or approve. */
  public static UnknownKeyPolicy of(String word) {
    return valueOf(word.trim().toUpperCase(Locale.ROOT));
  }
}
