package dev.conclave.platform.auth;

import com.google.protobuf.Empty;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every way a token can be good or bad, checked over both real gRPC and real HTTP against a running
 * node: the gate answers before any handler runs.
 */
class AuthOverTheWireTest {

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcCalls grpc;
  private static WebClient http;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.close();
    http.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void theAdminTokenFromFirstStartIsAcceptedAndPrivate() throws Exception {
    assertThat(Files.getPosixFilePermissions(node.runtime().config().adminTokenFile()))
      .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    GrpcCalls.Outcome<MeResponse> me = grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(node.adminToken()));
    assertThat(me.status()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(AdminBootstrap.ADMIN_PRINCIPAL_ID.toString());
    assertThat(me.response().orElseThrow().getRolesList()).contains(Roles.ADMIN);

    HttpResponse<Buffer> whoami = get("/api/v1/whoami", GrpcCalls.bearer(node.adminToken()));
    assertThat(whoami.statusCode()).isEqualTo(200);
    assertThat(whoami.bodyAsJsonObject().getString("principalId")).isEqualTo(AdminBootstrap.ADMIN_PRINCIPAL_ID.toString());
  }

  @Test
  void aMissingTokenIsRejected() {
    rejected(null, "token_missing");
  }

  @Test
  void aHeaderThatIsNotBearerIsRejected() {
    rejected("Basic YWRtaW46YWRtaW4=", "token_malformed");
  }

  @Test
  void anExpiredTokenIsRejected() {
    Clock twoHoursAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(2)), ZoneOffset.UTC);
    String token = issue(tokenService(secret(), twoHoursAgo), Duration.ofHours(1));
    rejected(GrpcCalls.bearer(token), "token_expired");
  }

  @Test
  void aTokenSignedWithAnotherSecretIsRejected() {
    String token = issue(tokenService("another-secret-that-is-long-enough-0123456789", Clock.systemUTC()), Duration.ofHours(1));
    rejected(GrpcCalls.bearer(token), "token_invalid");
  }

  @Test
  void aTokenWithAlteredClaimsIsRejected() {
    String[] parts = issue(tokenService(secret(), Clock.systemUTC()), Duration.ofHours(1)).split("\\.");
    JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1])));
    claims.put("roles", List.of("owner", "admin"));
    String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(claims.encode().getBytes()) + "." + parts[2];
    rejected(GrpcCalls.bearer(forged), "token_invalid");
  }

  @Test
  void garbageIsRejected() {
    rejected("Bearer not-a-jwt", "token_invalid");
  }

  @Test
  void aRevokedTokenIsRejectedAtOnce() throws Exception {
    TokenService tokens = node.runtime().context().tokens();
    Principal admin = node.runtime().context().principals().find(AdminBootstrap.ADMIN_PRINCIPAL_ID)
      .await(30, TimeUnit.SECONDS).orElseThrow();
    TokenService.IssuedToken issued = tokens.issue(admin, Duration.ofHours(1)).await(30, TimeUnit.SECONDS);
    assertThat(grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(issued.token())).status())
      .isEqualTo(GrpcStatus.OK);

    assertThat(tokens.revoke(issued.tokenId(), "test").await(30, TimeUnit.SECONDS)).isTrue();

    rejected(GrpcCalls.bearer(issued.token()), "token_revoked");
  }

  @Test
  void publicEndpointsNeedNoToken() throws Exception {
    assertThat(get("/health/live", null).statusCode()).isEqualTo(200);
  }

  private static void rejected(String authorization, String code) {
    GrpcCalls.Outcome<MeResponse> outcome = grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), authorization);
    assertThat(outcome.status()).as("gRPC status").isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(outcome.message()).startsWith(code + ":");
    assertThat(outcome.response()).isEmpty();

    HttpResponse<Buffer> response = get("/api/v1/whoami", authorization);
    assertThat(response.statusCode()).as("HTTP status").isEqualTo(401);
    assertThat(response.getHeader("content-type")).isEqualTo("application/problem+json");
    assertThat(response.getHeader("www-authenticate")).startsWith("Bearer");
    assertThat(response.bodyAsJsonObject().getString("code")).isEqualTo(code);
  }

  private static HttpResponse<Buffer> get(String path, String authorization) {
    var request = http.get(node.httpPort(), "127.0.0.1", path);
    if (authorization != null) {
      request.putHeader("authorization", authorization);
    }
    try {
      return request.send().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String secret() {
    try {
      return Files.readString(SigningKeys.file(node.dataDir())).trim();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static TokenService tokenService(String secret, Clock clock) {
    TokenStore store = new TokenStore(node.runtime().context().pool());
    return new TokenService(vertx, new SigningKeys(List.of(new SigningKeys.Key(SigningKeys.LEGACY_KID, secret))), store,
      new RevocationList(store), clock, new LiveCredentials(vertx), TokenService.Announcer.NONE);
  }

  private static String issue(TokenService service, Duration ttl) {
    Principal admin = new Principal(AdminBootstrap.ADMIN_PRINCIPAL_ID, PrincipalType.CLIENT, "admin", PrincipalStatus.APPROVED,
      List.of(Roles.MEMBER), Optional.empty(), Instant.now());
    try {
      return service.issue(admin, ttl).await(30, TimeUnit.SECONDS).token();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

}
