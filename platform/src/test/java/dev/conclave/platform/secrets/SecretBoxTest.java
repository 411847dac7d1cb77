package dev.conclave.platform.secrets;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** AES-256-GCM as the secrets use it: what was sealed opens, anything changed does not. */
class SecretBoxTest {

  private static final byte[] VALUE = "sk-live-0123456789".getBytes(StandardCharsets.UTF_8);
  private final SecretBox box = new SecretBox(randomKey());
  private final byte[] aad = SecretRef.agent("agent-1", "OPENAI_API_KEY").associatedData();

  @Test
  void whatIsSealedOpensWithTheSameKeyAndAssociatedData() {
    SecretBox.Sealed sealed = box.seal(VALUE, aad);
    assertThat(sealed.nonce()).hasSize(12);
    assertThat(sealed.ciphertext()).hasSize(VALUE.length + 16);
    assertThat(new String(sealed.ciphertext(), StandardCharsets.ISO_8859_1)).doesNotContain("sk-live");
    assertThat(box.open(sealed, aad)).hasValueSatisfying(v -> assertThat(v).isEqualTo(VALUE));
    assertThat(box.open(box.seal(new byte[0], aad), aad)).hasValueSatisfying(v -> assertThat(v).isEmpty());
  }

  @Test
  void everySealUsesAFreshNonce() {
    SecretBox.Sealed a = box.seal(VALUE, aad);
    SecretBox.Sealed b = box.seal(VALUE, aad);
    assertThat(a.nonce()).isNotEqualTo(b.nonce());
    assertThat(a.ciphertext()).isNotEqualTo(b.ciphertext());
  }

  @Test
  void aChangedCiphertextTagOrNonceIsRejected() {
    SecretBox.Sealed sealed = box.seal(VALUE, aad);
    byte[] body = sealed.ciphertext().clone();
    body[0] ^= 1;
    assertThat(box.open(new SecretBox.Sealed(sealed.nonce(), body), aad)).isEmpty();
    byte[] tag = sealed.ciphertext().clone();
    tag[tag.length - 1] ^= 1;
    assertThat(box.open(new SecretBox.Sealed(sealed.nonce(), tag), aad)).isEmpty();
    byte[] nonce = sealed.nonce().clone();
    nonce[5] ^= 1;
    assertThat(box.open(new SecretBox.Sealed(nonce, sealed.ciphertext()), aad)).isEmpty();
    byte[] truncated = java.util.Arrays.copyOf(sealed.ciphertext(), 10);
    assertThat(box.open(new SecretBox.Sealed(sealed.nonce(), truncated), aad)).isEmpty();
    assertThat(box.open(new SecretBox.Sealed(new byte[8], sealed.ciphertext()), aad)).isEmpty();
  }

  @Test
  void aValueDoesNotOpenUnderAnotherNameAgentOrScope() {
    SecretBox.Sealed sealed = box.seal(VALUE, aad);
    assertThat(box.open(sealed, SecretRef.agent("agent-1", "OTHER_KEY").associatedData())).isEmpty();
    assertThat(box.open(sealed, SecretRef.agent("agent-2", "OPENAI_API_KEY").associatedData())).isEmpty();
    assertThat(box.open(sealed, SecretRef.global("OPENAI_API_KEY").associatedData())).isEmpty();
  }

  @Test
  void aValueDoesNotOpenWithAnotherKey() {
    SecretBox.Sealed sealed = box.seal(VALUE, aad);
    assertThat(new SecretBox(randomKey()).open(sealed, aad)).isEmpty();
  }

  @Test
  void associatedDataIsUnambiguous() {
    // agent "a_" + name "B" and agent "a" + name "_B" must not encode alike
    assertThat(SecretRef.agent("a_", "B").associatedData()).isNotEqualTo(SecretRef.agent("a", "_B").associatedData());
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }
}
