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

  @Test
  void controlBidiAndInvisibleCharactersAreDropped() {
    assertThat(nameFor("admin\u202E tnega")).isEqualTo("admin tnega");
    assertThat(nameFor("zero\u200Bwidth\u0007bell")).isEqualTo("zerowidthbell");
    assertThat(nameFor("line\u2028break")).isEqualTo("linebreak");
  }

  @Test
  void nothingVisibleLeftFallsBackToTheFingerprint() {
    assertThat(nameFor("\u202E\u200B")).isEqualTo("ssh-agent " + FINGERPRINT.substring(0, 12));
    assertThat(nameFor(null)).isEqualTo("ssh-agent " + FINGERPRINT.substring(0, 12));
  }

  @Test
  void longCommentsAreCut() {
    assertThat(nameFor("x".repeat(5000)).length()).isLessThanOrEqualTo(200);
  }
}
