package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * A value PostgreSQL refuses because of the value (a check, a NOT NULL, a length, a syntax, a
 * missing reference, a duplicate) is the caller's mistake: it reaches the caller as a client error
 * that names the field or the rule, never as an internal error, and never with SQL in it.
 */
class PgRefusalsTest {

  private static Vertx vertx;
  private static Pool pool;

  @BeforeAll
  static void start() {
    PgUrl db = TestDatabase.freshDatabase();
    TestDatabase.execute(db, """
      CREATE TABLE parents (id uuid PRIMARY KEY);
      CREATE TABLE things (
        id       uuid        PRIMARY KEY,
        label    text        NOT NULL CHECK (length(label) BETWEEN 1 AND 10),
        code     varchar(4),
        parent   uuid        REFERENCES parents (id),
        nick     text        UNIQUE,
        CONSTRAINT things_sane_label CHECK (label <> 'forbidden')
      )""");
    vertx = Vertx.vertx();
    pool = PgPools.create(vertx, db, 2, 16);
  }

  @AfterAll
  static void stop() throws Exception {
    pool.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aCheckConstraintIsInvalidArgumentNamingTheField() {
    ConclaveException e = refusal("x".repeat(11), null, null, null);
    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(e.code()).isEqualTo("value_invalid");
    assertThat(e.detail()).contains("label").contains("things_label_check");
    clean(e);
    // a constraint named by hand: named as it is
    ConclaveException named = refusal("forbidden", null, null, null);
    assertThat(named.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(named.detail()).contains("things_sane_label");
    clean(named);
  }

  @Test
  void aMissingRequiredValueIsInvalidArgumentNamingTheField() {
    ConclaveException e = refusal(null, null, null, null);
    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(e.code()).isEqualTo("value_required");
    assertThat(e.detail()).contains("label");
    clean(e);
  }

  @Test
  void aValueTooLongOrOfTheWrongSyntaxIsInvalidArgument() {
    ConclaveException tooLong = refusal("ok", "12345", null, null);
    assertThat(tooLong.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(tooLong.code()).isEqualTo("value_invalid");
    clean(tooLong);
    ConclaveException syntax = failure(pool.preparedQuery("SELECT ($1::text)::uuid").execute(Tuple.of("not-a-uuid")));
    assertThat(syntax.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(syntax.code()).isEqualTo("value_invalid");
    clean(syntax);
  }

  @Test
  void aReferenceToNothingIsInvalidArgumentAndADuplicateAlreadyExists() {
    ConclaveException orphan = refusal("ok", null, UUID.randomUUID(), null);
    assertThat(orphan.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    assertThat(orphan.code()).isEqualTo("reference_unknown");
    assertThat(orphan.detail()).contains("parent");
    clean(orphan);
    await(insert("ok", null, null, "twin"));
    ConclaveException twin = refusal("ok", null, null, "twin");
    assertThat(twin.kind()).isEqualTo(ErrorKind.ALREADY_EXISTS);
    assertThat(twin.code()).isEqualTo("value_taken");
    assertThat(twin.detail()).contains("nick");
    clean(twin);
  }

  /** No SQL, no relation's text, no Java class in what the caller reads. */
  private static void clean(ConclaveException e) {
    assertThat(e.detail()).doesNotContainIgnoringCase("insert").doesNotContainIgnoringCase("select").doesNotContain("relation")
      .doesNotContain("Exception").doesNotContain("io.vertx").doesNotContain("reference ");
    assertThat(Failures.safeDetail(e.detail())).isEqualTo(e.detail());
  }

  private static ConclaveException refusal(String label, String code, UUID parent, String nick) {
    return failure(insert(label, code, parent, nick));
  }

  private static io.vertx.core.Future<?> insert(String label, String code, UUID parent, String nick) {
    return pool.preparedQuery("INSERT INTO things (id, label, code, parent, nick) VALUES ($1, $2, $3, $4, $5)")
      .execute(Tuple.of(UUID.randomUUID(), label, code, parent, nick));
  }

  private static ConclaveException failure(io.vertx.core.Future<?> f) {
    return Failures.classify(Await.failure(f, java.time.Duration.ofSeconds(10)));
  }
}
