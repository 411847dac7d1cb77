package dev.conclave.platform.auth;

import com.google.protobuf.Empty;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.db.PgPools;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Issue 40, finding 11: a token signed with the node's real key was accepted with an {@code nbf} in
 * the future or a {@code jti} that was never issued, and its roles came from its claims rather than
 * the database. Every token here is signed with the real key, so only those checks can refuse it.
 */
class TokenClaimsTest {

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcCalls grpc;
  private static WebClient http;
  private static Keyring realKey;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());
    http = WebClient.create(vertx);
    realKey = new Keyring(vertx, SigningKeys.resolve(node.runtime().config()), TokenService.ISSUER, TokenService.AUDIENCE);
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.close();
    http.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void aTokenThatIsNotValidYetIsRefused() {
    JsonObject claims = claimsOf(issue(member("nbf")));
    String forged = realKey.sign(claims.put("nbf", Instant.now().plus(Duration.ofHours(1)).getEpochSecond()),
      TokenService.ISSUER, TokenService.AUDIENCE);
    refused(forged, "token_not_yet_valid");
  }

  @Test
  void aTokenWhoseIdWasNeverIssuedIsRefused() {
    JsonObject claims = claimsOf(issue(member("jti")));
    String forged = realKey.sign(claims.put("jti", UUID.randomUUID().toString()), TokenService.ISSUER, TokenService.AUDIENCE);
    refused(forged, "token_unknown");
  }

  @Test
  void aTokenWithoutAnIdIsRefused() {
    JsonObject claims = claimsOf(issue(member("nojti")));
    claims.remove("jti");
    refused(realKey.sign(claims, TokenService.ISSUER, TokenService.AUDIENCE), "token_invalid");
  }

  @Test
  void rolesAndTypeComeFromTheDatabaseNotFromTheClaims() {
    Principal member = member("claims-admin");
    JsonObject claims = claimsOf(issue(member));
    String forged = realKey.sign(claims.put("roles", new JsonArray(List.of(Roles.OWNER, Roles.ADMIN))).put("ptype", "agent"),
      TokenService.ISSUER, TokenService.AUDIENCE);
    MeResponse me = me(forged).response().orElseThrow();
    assertThat(me.getRolesList()).containsExactly(Roles.MEMBER);
    assertThat(me.getPrincipalType()).isEqualTo("client");
  }

  @Test
  void aTokenNamingAnotherPrincipalOrPurposeThanItsRecordIsRefused() {
    JsonObject claims = claimsOf(issue(member("claims-sub")));
    String otherSub = realKey.sign(claims.copy().put("sub", AdminBootstrap.ADMIN_PRINCIPAL_ID.toString()),
      TokenService.ISSUER, TokenService.AUDIENCE);
    refused(otherSub, "token_invalid");
    // a read-only dashboard token made into an API token
    String bridge = await(node.runtime().context().tokens().issue(member("claims-pur"), Duration.ofHours(1), TokenPurpose.BRIDGE)).token();
    refused(realKey.sign(claimsOf(bridge).put("pur", "api"), TokenService.ISSUER, TokenService.AUDIENCE), "token_invalid");
    String laterExpiry = realKey.sign(claims.copy().put("exp", Instant.now().plus(Duration.ofDays(3000)).getEpochSecond()),
      TokenService.ISSUER, TokenService.AUDIENCE);
    refused(laterExpiry, "token_invalid");
  }

  @Test
  void aRoleRemovedInTheDatabaseTakesEffectWithoutANewToken() {
    Principal admin = principal("demoted", List.of(Roles.ADMIN));
    String token = issue(admin);
    assertThat(me(token).response().orElseThrow().getRolesList()).containsExactly(Roles.ADMIN);
    sql("UPDATE auth.principals SET roles = '{member}' WHERE id = $1", admin.id());
    long deadline = System.currentTimeMillis() + 30_000;
    List<String> roles = List.of(Roles.ADMIN);
    while (System.currentTimeMillis() < deadline) {
      roles = me(token).response().orElseThrow().getRolesList();
      if (roles.equals(List.of(Roles.MEMBER))) {
        break;
      }
      sleep(200);
    }
    assertThat(roles).as("roles 30 s after the database changed").containsExactly(Roles.MEMBER);
  }

  @Test
  void aPrincipalDisabledInTheDatabaseIsRefusedWithoutRevokingItsTokens() {
    Principal p = member("disabled-in-db");
    String token = issue(p);
    assertThat(me(token).status()).isEqualTo(GrpcStatus.OK);
    sql("UPDATE auth.principals SET status = 'revoked' WHERE id = $1", p.id());
    long deadline = System.currentTimeMillis() + 30_000;
    GrpcCalls.Outcome<MeResponse> outcome = me(token);
    while (outcome.status() == GrpcStatus.OK && System.currentTimeMillis() < deadline) {
      sleep(200);
      outcome = me(token);
    }
    assertThat(outcome.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(outcome.message()).startsWith("token_principal_inactive:");
  }

  @Test
  void aPendingPrincipalsTokenHasNoRolesUntilApprovedAndAnAnnouncedChangeHoldsAtOnce() {
    Principal pending = await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.CLIENT, "pending",
      PrincipalStatus.PENDING, List.of(Roles.MEMBER), Optional.empty()));
    String token = issue(pending);
    assertThat(me(token).response().orElseThrow().getRolesList()).as("roles while pending").isEmpty();
    // what POST /principals/{id}/approve does: the row, then the announcement every node listens to
    await(node.runtime().context().principals().setStatus(pending.id(), PrincipalStatus.APPROVED));
    node.runtime().context().tokens().principalChanged(pending.id());
    assertThat(me(token).response().orElseThrow().getRolesList()).as("roles once approved").containsExactly(Roles.MEMBER);
  }

  @Test
  void aTokenIssuedByAnotherProcessIsAcceptedAtOnce() throws Exception {
    // what ./conclave token does: its own Vert.x and pool, straight into the database, telling no node
    Vertx cli = Vertx.vertx();
    try {
      Pool pool = PgPools.create(cli, node.database(), 1, 4);
      TokenStore store = new TokenStore(pool);
      TokenService tokens = new TokenService(cli, SigningKeys.resolve(node.runtime().config()), store, new RevocationList(store),
        Clock.systemUTC(), new LiveCredentials(cli), TokenService.Announcer.NONE);
      Principal p = await(new PrincipalStore(pool).create(UUID.randomUUID(), PrincipalType.CLIENT, "from-cli", PrincipalStatus.APPROVED,
        List.of(Roles.MEMBER), Optional.empty()));
      // first seen over gRPC
      String token = await(tokens.issue(p, Duration.ofHours(1))).token();
      GrpcCalls.Outcome<MeResponse> me = me(token);
      assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
      assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(p.id().toString());
      assertThat(get(token).statusCode()).isEqualTo(200);
      // first seen over HTTP with the whole request read (it has ended) before the edge authenticates it
      String other = await(tokens.issue(p, Duration.ofHours(1))).token();
      HttpResponse<Buffer> whoami = await(WebClient.create(vertx).get(node.httpPort(), "127.0.0.1", "/api/v1/whoami")
        .putHeader("authorization", "Bearer " + other).send());
      assertThat(whoami.statusCode()).as(whoami.bodyAsString()).isEqualTo(200);
      assertThat(whoami.bodyAsJsonObject().getString("principalId")).isEqualTo(p.id().toString());
    } finally {
      cli.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static void refused(String token, String code) {
    GrpcCalls.Outcome<MeResponse> outcome = me(token);
    assertThat(outcome.status()).as("gRPC status").isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(outcome.message()).startsWith(code + ":");
    HttpResponse<Buffer> response = get(token);
    assertThat(response.statusCode()).as("HTTP status").isEqualTo(401);
    assertThat(response.bodyAsJsonObject().getString("code")).isEqualTo(code);
  }

  private static GrpcCalls.Outcome<MeResponse> me(String token) {
    return grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(token));
  }

  private static HttpResponse<Buffer> get(String token) {
    return await(http.get(node.httpPort(), "127.0.0.1", "/api/v1/whoami").putHeader("authorization", "Bearer " + token).send());
  }

  private static Principal member(String name) {
    return principal(name, List.of(Roles.MEMBER));
  }

  private static Principal principal(String name, List<String> roles) {
    return await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.CLIENT, name, PrincipalStatus.APPROVED,
      roles, Optional.empty()));
  }

  private static String issue(Principal p) {
    return await(node.runtime().context().tokens().issue(p, Duration.ofHours(1))).token();
  }

  private static JsonObject claimsOf(String token) {
    return new JsonObject(new String(Base64.getUrlDecoder().decode(token.split("\\.")[1])));
  }

  private static void sql(String statement, UUID id) {
    await(node.runtime().context().pool().preparedQuery(statement).execute(Tuple.of(id)));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
