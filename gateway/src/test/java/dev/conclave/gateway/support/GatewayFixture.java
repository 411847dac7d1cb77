package dev.conclave.gateway.support;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

/** A real node running the gateway role, plus a client-side Vert.x to talk to it over the wire. */
public final class GatewayFixture implements AutoCloseable {

  private final TestNode node;
  private final Vertx vertx = Vertx.vertx();
  private final GrpcCalls grpc;

  private GatewayFixture(TestNode node) {
    this.node = node;
    this.grpc = new GrpcCalls(vertx, node.grpcPort());
  }

  public static GatewayFixture start() {
    return start(TestNode.builder());
  }

  public static GatewayFixture start(TestNode.Builder builder) {
    return start(builder, new GatewayRole());
  }

  /** A node running {@code role} (a gateway role built with test timings). */
  public static GatewayFixture start(GatewayRole role) {
    return start(TestNode.builder(), role);
  }

  public static GatewayFixture start(TestNode.Builder builder, GatewayRole role) {
    return new GatewayFixture(builder.role(role).start());
  }

  public TestNode node() {
    return node;
  }

  public Vertx vertx() {
    return vertx;
  }

  public GrpcCalls grpc() {
    return grpc;
  }

  public GrpcClient grpcClient() {
    return grpc.client();
  }

  public SocketAddress address() {
    return grpc.address();
  }

  /** A new approved agent principal; returns its token. */
  public String agentToken(String name) {
    return token(newPrincipal(PrincipalType.AGENT, name, PrincipalStatus.APPROVED, List.of()));
  }

  /** A new approved agent principal owned by {@code owner}; returns its token. */
  public String agentTokenOwnedBy(String name, UUID owner) {
    return token(await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT, name,
      PrincipalStatus.APPROVED, List.of(), Optional.empty(), Optional.of(owner))));
  }

  /** A new approved member principal. */
  public Principal newMember(String name) {
    return newPrincipal(PrincipalType.CLIENT, name, PrincipalStatus.APPROVED, List.of(Roles.MEMBER));
  }

  /** A new approved client principal with the member role; returns its token. */
  public String memberToken(String name) {
    return token(newPrincipal(PrincipalType.CLIENT, name, PrincipalStatus.APPROVED, List.of(Roles.MEMBER)));
  }

  public Principal newPrincipal(PrincipalType type, String name, PrincipalStatus status, List<String> roles) {
    return await(node.runtime().context().principals().create(UUID.randomUUID(), type, name, status, roles, Optional.empty()));
  }

  public String token(Principal p) {
    return await(node.runtime().context().tokens().issue(p, Duration.ofHours(1))).token();
  }

  public Clients admin() {
    return new Clients(grpc, node.adminToken());
  }

  public Clients clients(String token) {
    return new Clients(grpc, token);
  }

  public RawAgent agent(String token) {
    return RawAgent.open(grpc.client(), grpc.address(), token);
  }

  /** Opens a stream and registers it; returns the connected agent. */
  public RawAgent connect(String agentId, String token, String... features) {
    RawAgent agent = agent(token);
    agent.register(RawAgent.registration(agentId, features));
    return agent;
  }

  @Override
  public void close() {
    grpc.close();
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // best effort
    }
    node.close();
  }

  /**
   * The shared {@link Await#await(io.vertx.core.Future)}; kept under this name because many gateway,
   * node and pack-host tests (and branches in flight) call it. New code calls {@code Await.await}.
   */
  public static <T> T await(io.vertx.core.Future<T> f) {
    return Await.await(f);
  }
}
