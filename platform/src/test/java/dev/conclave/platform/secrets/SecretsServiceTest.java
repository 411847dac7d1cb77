package dev.conclave.platform.secrets;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.UUID;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.conclave.platform.testing.Await.await;

/** The secrets service on a real database: what it accepts, what it refuses, and that stored values stay bound to their names. */
class SecretsServiceTest {

  private static final UUID ADMIN = UUID.randomUUID();
  private static TestNode node;
  private static Secrets secrets;

  @BeforeAll
  static void start() {
    node = TestNode.builder().start();
    secrets = node.runtime().context().secrets();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void namesAreEnvironmentVariableNames() {
    for (String bad : new String[] {"", "lower", "1ST", "WITH-DASH", "WITH SPACE", "É", "A".repeat(129)}) {
      assertThatThrownBy(() -> SecretRef.global(bad)).isInstanceOf(ConclaveException.class)
        .extracting(e -> ((ConclaveException) e).code()).isEqualTo("secret_name_invalid");
    }
    assertThat(SecretRef.global("_A1").name()).isEqualTo("_A1");
    assertThat(SecretRef.global("A".repeat(128)).name()).hasSize(128);
    assertThatThrownBy(() -> SecretRef.agent("has space", "OK")).extracting(e -> ((ConclaveException) e).code()).isEqualTo("agent_id_invalid");
    assertThatThrownBy(() -> SecretRef.agent("", "OK")).extracting(e -> ((ConclaveException) e).code()).isEqualTo("agent_id_invalid");
  }

  @Test
  void valuesUpTo64KibOfTextAreAccepted() {
    SecretRef ref = SecretRef.agent("sizes", "BIG");
    await(secrets.set(ref, "é".repeat(32 * 1024), ADMIN));
    assertThat(await(secrets.resolveFor("sizes")).get("BIG")).hasSize(32 * 1024);
    assertThat(failure(secrets.set(ref, "x".repeat(64 * 1024 + 1), ADMIN)).code()).isEqualTo("secret_value_too_large");
    assertThat(failure(secrets.set(ref, "é".repeat(32 * 1024) + "x", ADMIN)).code()).as("bytes, not characters").isEqualTo("secret_value_too_large");
    assertThat(failure(secrets.set(ref, "a\0b", ADMIN)).code()).isEqualTo("secret_value_invalid");
    assertThat(failure(secrets.set(ref, "lone \ud800 surrogate", ADMIN)).code()).isEqualTo("secret_value_invalid");
    assertThat(failure(secrets.set(ref, null, ADMIN)).code()).isEqualTo("secret_value_required");
    await(secrets.set(ref, "", ADMIN));
    assertThat(await(secrets.resolveFor("sizes"))).containsEntry("BIG", "");
  }

  @Test
  void aScopeHoldsAtMostOneMebibyteSoAWelcomeAlwaysFits() {
    String value = "v".repeat(Secrets.MAX_VALUE_BYTES);
    for (int i = 0; i < 15; i++) {
      await(secrets.set(SecretRef.agent("full", "S" + i), value, ADMIN));
    }
    ConclaveException full = failure(secrets.set(SecretRef.agent("full", "S15"), value, ADMIN));
    assertThat(full.code()).isEqualTo("secrets_limit_reached");
    assertThat(full.detail()).contains("agent 'full'").doesNotContain(value.substring(0, 20));
    await(secrets.set(SecretRef.agent("full", "S3"), value.replace('v', 'w'), ADMIN));
    await(secrets.set(SecretRef.agent("not-full", "S15"), value, ADMIN));
    assertThat(await(secrets.resolveFor("full"))).hasSize(15).containsKey("S3");
  }

  @Test
  void aValueCopiedToAnotherNameInTheDatabaseDoesNotDecrypt() {
    await(secrets.set(SecretRef.agent("moved", "ADMIN_PASSWORD"), "hunter2-admin", ADMIN));
    await(secrets.set(SecretRef.agent("moved", "GUEST_PASSWORD"), "guest", ADMIN));
    TestDatabase.execute(node.database(), "UPDATE auth.secrets g SET nonce = a.nonce, ciphertext = a.ciphertext "
      + "FROM auth.secrets a WHERE g.agent_id = 'moved' AND g.name = 'GUEST_PASSWORD' AND a.agent_id = 'moved' AND a.name = 'ADMIN_PASSWORD'");
    ConclaveException refused = failure(secrets.resolveFor("moved"));
    assertThat(refused.code()).isEqualTo("secret_unreadable");
    assertThat(refused.detail()).contains("GUEST_PASSWORD").doesNotContain("hunter2").doesNotContain("guest\"");
  }

  @Test
  void deletingRemovesAndASecondDeleteIsNotFound() {
    SecretRef ref = SecretRef.global("TO_DELETE");
    await(secrets.set(ref, "gone soon", ADMIN));
    assertThat(await(secrets.resolveFor("anyone"))).containsEntry("TO_DELETE", "gone soon");
    await(secrets.delete(ref, ADMIN));
    assertThat(await(secrets.resolveFor("anyone"))).doesNotContainKey("TO_DELETE");
    assertThat(failure(secrets.delete(ref, ADMIN)).code()).isEqualTo("secret_not_found");
  }

  private static ConclaveException failure(Future<?> f) {
    Throwable failure = Await.failure(f, java.time.Duration.ofSeconds(15));
    if (failure instanceof ConclaveException ce) {
      return ce;
    }
    throw new AssertionError("expected a ConclaveException, got " + failure, failure);
  }
}
