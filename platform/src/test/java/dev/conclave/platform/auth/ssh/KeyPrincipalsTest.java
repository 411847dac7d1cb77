package dev.conclave.platform.auth.ssh;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The name a principal created for an unknown SSH key gets from the key's comment. */
class KeyPrincipalsTest {

  private static final String FINGERPRINT = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

  private static String nameFor(String comment) {
    return KeyPrincipals.displayName(new AgentKey("ssh-ed25519", null, new byte[0], FINGERPRINT, Optional.ofNullable(comment)));
  }

  @Test
  void aPlainCommentIsTheName() {
    assertThat(nameFor("build-agent@ci")).isEqualTo("build-agent@ci");
  }

  /** The comment is the name only if it is a valid principal name, as an admin's would have to be (issue 40, finding 5). */
  @Test
  void aCommentThatIsNoValidNameIsNotUsed() {
    String fallback = "ssh-agent " + FINGERPRINT.substring(0, 12);
    assertThat(nameFor("admin\u202E tnega")).isEqualTo(fallback);
    assertThat(nameFor("zero\u200Bwidth\u0007bell")).isEqualTo(fallback);
    assertThat(nameFor("line\u2028break")).isEqualTo(fallback);
    assertThat(nameFor("x".repeat(201))).isEqualTo(fallback);
    assertThat(nameFor("x".repeat(200))).isEqualTo("x".repeat(200));
  }

  @Test
  void withoutACommentTheNameComesFromTheFingerprint() {
    assertThat(nameFor("  ")).isEqualTo("ssh-agent " + FINGERPRINT.substring(0, 12));
    assertThat(nameFor(null)).isEqualTo("ssh-agent " + FINGERPRINT.substring(0, 12));
  }
}
