package dev.conclave.node.access;

import com.google.protobuf.Message;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.Welcome;
import dev.conclave.swarm.app.CoordinatorRole;
import dev.conclave.swarm.config.SwarmSettings;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One node with every role, and a caller of each kind ({@link Who}): an agent principal, a pack
 * principal, a member who owns the connected agent {@value #AGENT_ID}, a member without access to
 * it, an admin, that agent's MCP token, and a bridge token. Calls report what access control made of them.
 */
final class MatrixFixture implements AutoCloseable {

  static final String AGENT_ID = "mx-agent";

  static final String ALLOWED = "allowed";
  static final String UNAUTHENTICATED = "unauthenticated";
  static final String DENIED = "denied";
  /** Refused as if the thing did not exist: for what the caller may not even know of. */
  static final String HIDDEN = "hidden";

  final TestNode node;
  final Vertx vertx = Vertx.vertx();
  final GrpcCalls grpc;
  final WebClient http;
  final Map<Who, String> tokens = new EnumMap<>(Who.class);
  final Map<Who, UUID> principals = new EnumMap<>(Who.class);
  final RawAgent agent;
  private final AtomicInteger counter = new AtomicInteger();
  /** Sees every HTTP answer a probe gets (JsonStyleTest reads their bodies). */
  private volatile Consumer<Exchange> observer = e -> { };

  /** One HTTP call and its answer. */
  record Exchange(HttpMethod method, String path, int status, String contentType, String body) {
  }

  MatrixFixture() {
    // the swarm's per-minute limits would refuse the probes' many registrations from one address
    node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole())
      .env(SwarmSettings.RATE_LIMITS.name(), "false").start();
    grpc = new GrpcCalls(vertx, node.grpcPort());
    http = WebClient.create(vertx);
    Principal withAccess = create(PrincipalType.CLIENT, "mx-owner", List.of(Roles.MEMBER), Optional.empty());
    put(Who.MEMBER_WITH_ACCESS, withAccess);
    tokens.put(Who.BRIDGE_TOKEN, GatewayFixture.await(node.runtime().context().tokens().issue(withAccess, Duration.ofHours(1),
      TokenPurpose.BRIDGE)).token());
    put(Who.MEMBER_WITHOUT_ACCESS, create(PrincipalType.CLIENT, "mx-stranger", List.of(Roles.MEMBER), Optional.empty()));
    put(Who.AGENT, create(PrincipalType.AGENT, "mx-other-agent", List.of(), Optional.empty()));
    put(Who.PACK, create(PrincipalType.PACK, "mx-pack", List.of(), Optional.empty()));
    tokens.put(Who.ADMIN, node.adminToken());
    principals.put(Who.ADMIN, GatewayFixture.await(node.runtime().context().tokens().authenticate(node.adminToken())).principalId());
    agent = RawAgent.open(grpc.client(), grpc.address(), token(create(PrincipalType.AGENT, "mx-agent-principal", List.of(),
      Optional.of(withAccess.id()))));
    Welcome welcome = agent.register(RawAgent.registration(AGENT_ID, "injection"));
    tokens.put(Who.MCP_TOKEN, welcome.getMcpToken());
  }

  String unique(String prefix) {
    return prefix + "-" + counter.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xfffff);
  }

  Principal create(PrincipalType type, String name, List<String> roles, Optional<UUID> owner) {
    return create(type, name, PrincipalStatus.APPROVED, roles, owner);
  }

  Principal create(PrincipalType type, String name, PrincipalStatus status, List<String> roles, Optional<UUID> owner) {
    return GatewayFixture.await(node.runtime().context().principals().create(UUID.randomUUID(), type, unique(name), status, roles,
      Optional.empty(), owner));
  }

  Principal newMember() {
    return create(PrincipalType.CLIENT, "mx-member", List.of(Roles.MEMBER), Optional.empty());
  }

  String token(Principal p) {
    return GatewayFixture.await(node.runtime().context().tokens().issue(p, Duration.ofHours(1))).token();
  }

  private void put(Who who, Principal p) {
    principals.put(who, p.id());
    tokens.put(who, token(p));
  }

  String authorization(Who who) {
    return who == Who.NOBODY ? null : GrpcCalls.bearer(tokens.get(who));
  }

  static String outcome(GrpcStatus status) {
    return switch (status) {
      case OK -> ALLOWED;
      case UNAUTHENTICATED -> UNAUTHENTICATED;
      case PERMISSION_DENIED -> DENIED;
      case NOT_FOUND -> HIDDEN;
      default -> "grpc " + status.name();
    };
  }

  static String outcome(int httpStatus) {
    if (httpStatus >= 200 && httpStatus < 300) {
      return ALLOWED;
    }
    return switch (httpStatus) {
      case 401 -> UNAUTHENTICATED;
      case 403 -> DENIED;
      case 404 -> HIDDEN;
      default -> "http " + httpStatus;
    };
  }

  /** A unary call as {@code who}. */
  <Req extends Message, Resp> GrpcCalls.Outcome<Resp> call(ServiceMethod<Resp, Req> method, Req request, Who who) {
    return grpc.unary(method, request, authorization(who));
  }

  /** A unary call's outcome. */
  <Req extends Message, Resp> String unary(ServiceMethod<Resp, Req> method, Req request, Who who) {
    return outcome(call(method, request, who).status());
  }

  /** An HTTP call as {@code who}, with extra headers. */
  HttpResponse<Buffer> send(HttpMethod method, String path, JsonObject body, Who who, Map<String, String> headers) {
    HttpRequest<Buffer> request = http.request(method, node.httpPort(), "127.0.0.1", path);
    if (who != Who.NOBODY) {
      request.bearerTokenAuthentication(tokens.get(who));
    }
    headers.forEach(request::putHeader);
    try {
      HttpResponse<Buffer> response = (body == null ? request.send() : request.sendJsonObject(body)).await(15, TimeUnit.SECONDS);
      observer.accept(new Exchange(method, path, response.statusCode(), response.getHeader("content-type"), response.bodyAsString()));
      return response;
    } catch (Exception e) {
      throw new AssertionError(method + " " + path + " failed: " + e, e);
    }
  }

  /** Who sees every HTTP answer from now on (none: {@code e -> { }}). */
  void observe(Consumer<Exchange> observer) {
    this.observer = observer;
  }

  /** A WebSocket upgrade's outcome: allowed when the socket opened. */
  String webSocket(String path, Who who) {
    io.vertx.core.http.WebSocketClient client = vertx.createWebSocketClient();
    io.vertx.core.http.WebSocketConnectOptions options = new io.vertx.core.http.WebSocketConnectOptions()
      .setHost("127.0.0.1").setPort(node.httpPort()).setURI(path);
    if (who != Who.NOBODY) {
      options.addHeader("authorization", "Bearer " + tokens.get(who));
    }
    try {
      io.vertx.core.http.WebSocket ws = client.connect(options).await(15, TimeUnit.SECONDS);
      ws.close();
      return ALLOWED;
    } catch (io.vertx.core.http.UpgradeRejectedException rejected) {
      return outcome(rejected.getStatus());
    } catch (Exception e) {
      throw new AssertionError("upgrade " + path + " failed: " + e, e);
    } finally {
      client.close();
    }
  }

  /** An HTTP call's outcome. */
  String http(HttpMethod method, String path, JsonObject body, Who who) {
    return outcome(send(method, path, body, who, Map.of()).statusCode());
  }

  /** A call that sets up what a probe acts on: it must succeed; returns the JSON body. */
  JsonObject setUp(HttpMethod method, String path, JsonObject body, Who who) {
    HttpResponse<Buffer> r = send(method, path, body, who, Map.of());
    if (r.statusCode() / 100 != 2) {
      throw new AssertionError("set-up call " + method + " " + path + " as " + who + " failed: " + r.statusCode() + " " + r.bodyAsString());
    }
    return r.bodyAsString() == null || r.bodyAsString().isBlank() ? new JsonObject() : r.bodyAsJsonObject();
  }

  @Override
  public void close() {
    agent.close();
    grpc.close();
    http.close();
    vertx.close();
    node.close();
  }
}
