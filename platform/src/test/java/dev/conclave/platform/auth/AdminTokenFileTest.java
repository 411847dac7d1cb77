package dev.conclave.platform.auth;

import com.google.protobuf.Empty;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.RawHttp;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Future;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * {@code CONCLAVE_ADMIN_TOKEN_FILE}: the bootstrap admin's credential comes from a file the operator
 * made once (a Kubernetes Secret), not from a new token written at every start. Nodes on one database
 * register it once, whichever starts first; it is a bearer token like any admin token (HTTP, gRPC); a
 * new value in the file, after a restart, is the admin's credential and the old one is revoked.
 */
class AdminTokenFileTest {

  /** Where the test's credential files live: JUnit deletes it afterwards. */
  @TempDir
  Path temp;

  @Test
  void twoStartsWithTheSameFileRegisterOneCredentialThatAuthenticatesAsTheAdmin() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    String secret = newSecret();
    Path file = secretFile(secret + "\n");
    try (TestNode first = node(db, file); TestNode second = node(db, file)) {
      assertThat(first.runtime().config().adminTokenFile()).as("no admin.token is written when the Secret is the credential").doesNotExist();
      for (TestNode node : List.of(first, second)) {
        Caller caller = await(node.runtime().context().tokens().authenticate(secret));
        assertThat(caller.principalId()).isEqualTo(AdminBootstrap.ADMIN_PRINCIPAL_ID);
        assertThat(caller.isAdmin()).isTrue();
        RawHttp.Response whoami = RawHttp.send(node.httpPort(), "GET", "/api/v1/whoami", Map.of("authorization", "Bearer " + secret), null,
          20_000);
        assertThat(whoami.status()).as(whoami.body()).isEqualTo(200);
        assertThat(whoami.body()).contains(AdminBootstrap.ADMIN_PRINCIPAL_ID.toString());
        // the console's login takes it as it takes any admin token
        RawHttp.Response login = RawHttp.send(node.httpPort(), "POST", "/auth/session", Map.of("content-type", "application/json"),
          ("{\"token\":\"" + secret + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8), 20_000);
        assertThat(login.status()).as(login.body()).isEqualTo(200);
        assertThat(login.body()).contains("\"admin\"");
        assertThat(login.header("set-cookie")).contains("HttpOnly");
        try (GrpcCalls grpc = new GrpcCalls(node.runtime().context().vertx(), node.grpcPort())) {
          GrpcCalls.Outcome<MeResponse> me = grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(secret));
          assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
          assertThat(me.response().orElseThrow().getRolesList()).contains(Roles.OWNER, Roles.ADMIN);
        }
      }
      // a value of that shape that nobody registered is refused as any unreadable token is
      RawHttp.Response made = RawHttp.send(first.httpPort(), "GET", "/api/v1/whoami", Map.of("authorization", "Bearer " + newSecret()),
        null, 20_000);
      assertThat(made.status()).as(made.body()).isEqualTo(401);
      assertThat(made.body()).contains("token_invalid");
      assertThat(adminTokens(first)).as("the admin's tokens after two starts with one Secret").hasSize(1);
    }
    try (TestNode again = node(db, file)) {
      assertThat(adminTokens(again)).as("after a restart").hasSize(1);
    }
  }

  /** Pods of a rollout start together: the lock makes one of them register the value, the other find it. */
  @Test
  void nodesStartingTogetherRegisterItOnce() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    // the schema first, so that the two starts meet at the registration, not at the migrations
    TestNode.builder().role(new EchoRole()).database(db).env("CONCLAVE_WRITE_ADMIN_TOKEN", "off").start().close();
    String secret = newSecret();
    Path file = secretFile(secret);
    java.util.concurrent.ExecutorService starts = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      java.util.concurrent.Future<TestNode> a = starts.submit(() -> node(db, file));
      java.util.concurrent.Future<TestNode> b = starts.submit(() -> node(db, file));
      try (TestNode first = a.get(120, TimeUnit.SECONDS); TestNode second = b.get(120, TimeUnit.SECONDS)) {
        assertThat(adminTokens(first)).as("the admin's tokens after two starts at once").hasSize(1);
        assertThat(await(first.runtime().context().tokens().authenticate(secret)).isAdmin()).isTrue();
        assertThat(await(second.runtime().context().tokens().authenticate(secret)).isAdmin()).isTrue();
      }
    } finally {
      starts.shutdown();
    }
  }

  /**
   * The registration itself, eight at the same moment on one database (two pods' starts rarely meet
   * there on a test machine): one registers, the others find it, none fails on the other's insert.
   */
  @Test
  void registrationsAtTheSameMomentAddOneRecordAndNoneFails() throws Exception {
    try (TestNode node = TestNode.builder().role(new EchoRole()).env("CONCLAVE_WRITE_ADMIN_TOKEN", "off").start()) {
      AdminTokenFile file = AdminTokenFile.read(secretFile(newSecret()));
      var context = node.runtime().context();
      List<Future<AdminBootstrap.FromFile>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(AdminBootstrap.ensureTokenFromFile(file, context.pool(), context.principals(), context.tokens(), java.time.Clock.systemUTC()));
      }
      List<AdminBootstrap.FromFile> done = await(Future.join(all).map(f -> f.<AdminBootstrap.FromFile>list()));
      assertThat(done.stream().filter(AdminBootstrap.FromFile::registered)).as("registrations that inserted").hasSize(1);
      assertThat(adminTokens(node)).hasSize(1);
    }
  }

  @Test
  void aNewValueAfterARestartRevokesTheOldOne() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    String old = newSecret();
    Path file = secretFile(old);
    try (TestNode node = node(db, file)) {
      assertThat(await(node.runtime().context().tokens().authenticate(old)).isAdmin()).isTrue();
    }
    String rotated = newSecret();
    Files.writeString(file, rotated);
    try (TestNode node = node(db, file); TestNode other = node(db, file)) {
      assertThat(await(node.runtime().context().tokens().authenticate(rotated)).isAdmin()).isTrue();
      for (TestNode n : List.of(node, other)) {
        RawHttp.Response refused = RawHttp.send(n.httpPort(), "GET", "/api/v1/whoami", Map.of("authorization", "Bearer " + old), null, 20_000);
        assertThat(refused.status()).as(refused.body()).isEqualTo(401);
        assertThat(refused.body()).contains("token_revoked");
      }
      List<Row> tokens = adminTokens(node);
      assertThat(tokens).hasSize(2);
      assertThat(tokens.stream().filter(r -> r.getOffsetDateTime("revoked_at") == null)).as("live admin credentials").hasSize(1);
    }
    Files.writeString(file, old);
    assertThatStartFails(db, file, "CONCLAVE_ADMIN_TOKEN_FILE: " + file + " holds a credential that was revoked (replaced by a newer one "
      + "or revoked by an admin): put a new value in it");
  }

  /** A rolling restart: the pods not yet restarted stop accepting the old value too (the revocation reaches every node). */
  @Test
  void aNodeStillRunningRefusesTheOldValueOnceANewOneIsRegistered() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    String old = newSecret();
    Path oldFile = secretFile(old);
    try (TestNode running = node(db, oldFile)) {
      assertThat(await(running.runtime().context().tokens().authenticate(old)).isAdmin()).isTrue();
      String rotated = newSecret();
      try (TestNode restarted = node(db, secretFile(rotated))) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        RawHttp.Response answer;
        do {
          Thread.sleep(200);
          answer = RawHttp.send(running.httpPort(), "GET", "/api/v1/whoami", Map.of("authorization", "Bearer " + old), null, 20_000);
        } while (answer.status() == 200 && System.nanoTime() < deadline);
        assertThat(answer.status()).as("the old value on the node that has not restarted: " + answer.body()).isEqualTo(401);
        assertThat(answer.body()).contains("token_revoked");
        RawHttp.Response rotatedThere = RawHttp.send(running.httpPort(), "GET", "/api/v1/whoami",
          Map.of("authorization", "Bearer " + rotated), null, 20_000);
        assertThat(rotatedThere.status()).as("the new value there: " + rotatedThere.body()).isEqualTo(200);
      }
    }
  }

  @Test
  void aMissingEmptyShortOrUnreadableFileStopsTheStartWithOneLine() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    Path missing = Files.createDirectories(temp.resolve("missing")).resolve("token");
    assertThatStartFails(db, missing, "CONCLAVE_ADMIN_TOKEN_FILE: " + missing + " does not exist");
    Path empty = secretFile("\n");
    assertThatStartFails(db, empty, "CONCLAVE_ADMIN_TOKEN_FILE: " + empty + " is empty");
    Path shortOne = secretFile("hunter2");
    assertThatStartFails(db, shortOne, "CONCLAVE_ADMIN_TOKEN_FILE: " + shortOne + " holds 7 characters; the admin's credential needs at "
      + "least 32 (make one with: openssl rand -base64 32)");
    Path dotted = secretFile("a.b" + newSecret());
    assertThatStartFails(db, dotted, "CONCLAVE_ADMIN_TOKEN_FILE: " + dotted + " holds a '.' or a character that is not printable ASCII; "
      + "make one with: openssl rand -base64 32");
    Path directory = Files.createDirectories(temp.resolve("a-directory"));
    assertThatStartFails(db, directory, "CONCLAVE_ADMIN_TOKEN_FILE: " + directory + " cannot be read: it is a directory");
  }

  private static void assertThatStartFails(PgUrl db, Path file, String line) {
    Throwable failure = null;
    try (TestNode ignored = node(db, file)) {
      // started: the assertion below says so
    } catch (RuntimeException e) {
      failure = e;
    }
    assertThat(failure).as("the start with %s", file).isNotNull();
    Throwable setting = failure;
    while (setting != null && !(setting instanceof dev.conclave.settings.ConfigException)) {
      setting = setting.getCause();
    }
    assertThat(setting).as("a configuration error in %s", failure).isNotNull();
    assertThat(setting.getMessage()).isEqualTo(line);
  }

  private static TestNode node(PgUrl db, Path file) {
    return TestNode.builder().role(new EchoRole()).database(db).env("CONCLAVE_ADMIN_TOKEN_FILE", file.toString()).start();
  }

  private static List<Row> adminTokens(TestNode node) throws Exception {
    List<Row> out = new ArrayList<>();
    await(node.runtime().context().pool().preparedQuery("SELECT id, revoked_at FROM auth.tokens WHERE principal_id = $1")
      .execute(io.vertx.sqlclient.Tuple.of(AdminBootstrap.ADMIN_PRINCIPAL_ID))).forEach(out::add);
    return out;
  }

  private static String newSecret() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  private Path secretFile(String content) throws Exception {
    return Files.writeString(Files.createTempFile(temp, "admin-secret", ".token"), content);
  }
}
