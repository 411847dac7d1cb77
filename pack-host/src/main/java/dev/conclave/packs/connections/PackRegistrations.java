package dev.conclave.packs.connections;

import dev.conclave.contract.Addresses;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.registry.Manifests;
import dev.conclave.packs.registry.PackRecord;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.packs.PackNodeOps;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackWelcome;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * Opens a pack's registration on this node: checks the manifest and the principal, wins the pack id
 * and the tool names cluster-wide, tells the pack which names it lost (response header
 * {@value #WELCOME_HEADER}), replaces an older stream of the same pack, and watches the connection
 * with HTTP/2 pings until the stream ends, when everything it registered is released.
 */
public final class PackRegistrations {

  /** Binary response metadata carrying the {@code PackWelcome}, sent before the first call. */
  public static final String WELCOME_HEADER = "pack-welcome-bin";

  private static final Logger LOG = LoggerFactory.getLogger(PackRegistrations.class);

  private final Vertx vertx;
  private final String nodeId;
  private final ClusterMembership membership;
  private final PrincipalStore principals;
  private final ToolRegistry registry;
  private final LocalPacks local;
  private final Duration pingInterval;
  private final LiveCredentials live;
  private final EdgeSecurity edge;

  public PackRegistrations(Vertx vertx, String nodeId, ClusterMembership membership, PrincipalStore principals, ToolRegistry registry,
                           LocalPacks local, Duration pingInterval, LiveCredentials live, EdgeSecurity edge) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.membership = membership;
    this.principals = principals;
    this.registry = registry;
    this.local = local;
    this.pingInterval = pingInterval;
    this.live = live;
    this.edge = edge;
  }

  public Future<Void> open(Caller caller, PackManifest manifest, GrpcServerRequest<PackManifest, ExecuteToolRequest> request) {
    if (local.draining()) {
      return Future.failedFuture(PackErrors.nodeStopping());
    }
    Manifests.validate(manifest);
    Context context = Vertx.currentContext();
    GrpcServerResponse<PackManifest, ExecuteToolRequest> response = request.response();
    boolean[] gone = {false};
    String[] goneWhy = {""};
    request.errorHandler(err -> {
      gone[0] = true;
      goneWhy[0] = "stream reset: " + err;
    });
    request.exceptionHandler(err -> {
      gone[0] = true;
      goneWhy[0] = "stream failed: " + err.getMessage();
    });
    PackRecord mine = new PackRecord(manifest.getPackId(), manifest.getVersion(), nodeId, membership.localMember(),
      UUID.randomUUID().toString(), caller.principalId().toString(), List.of(), Instant.now());
    String remote = request.connection() == null || request.connection().remoteAddress() == null ? ""
      : request.connection().remoteAddress().toString();
    String target = "pack_id=" + manifest.getPackId();
    return principals.find(caller.principalId())
      .compose(found -> approved(found.orElse(null)))
      .onFailure(err -> edge.audit(caller, "pack.register", target, err, remote))
      .compose(p -> registry.claim(mine, manifest.getToolsList()))
      .compose(claim -> {
        // the older stream of the same pack lost its names to this one, whatever becomes of this one
        claim.superseded().filter(old -> !old.connection().equals(mine.connection())).ifPresent(this::supersede);
        if (gone[0]) {
          // the pack went away while we registered it
          return registry.release(claim.record(), goneWhy[0]);
        }
        Runnable[] unwatch = {() -> { }};
        PackConnection connection = new PackConnection(vertx, context, claim.record(), manifest, response, c -> {
          unwatch[0].run();
          closed(c);
          edge.lifecycle(caller, "pack.disconnect", target, "", remote);
        });
        local.add(connection);
        unwatch[0] = live.watch(caller, reason -> connection.close("credentials revoked", AuthErrors.credentialsRevoked(reason)));
        // every way the pack's side can end the stream releases it: a cancel or reset, a failure (its
        // connection closing fails the stream); the manifest's own end, a half-close, is no end: calls
        // still go out on the response
        request.errorHandler(err -> connection.endedByPack("stream reset: " + err));
        request.exceptionHandler(err -> connection.endedByPack("stream failed: " + err.getMessage()));
        request.endHandler(v -> { });
        response.exceptionHandler(err -> connection.endedByPack("response failed: " + err.getMessage()));
        try {
          response.headers().set(WELCOME_HEADER, Base64.getEncoder().encodeToString(PackWelcome.newBuilder()
            .setPackId(manifest.getPackId()).addAllRejectedTools(claim.rejected()).build().toByteArray()));
          response.writeHead();
        } catch (RuntimeException streamGone) {
          connection.endedByPack("stream gone before the welcome: " + streamGone.getMessage());
          return Future.succeededFuture();
        }
        watch(connection, request);
        edge.audit(caller, "pack.register", target + ", tools=" + claim.accepted().size(), null, remote);
        LOG.info("pack registered pack={} version={} principal={} node={} tools={} rejected={}", manifest.getPackId(),
          manifest.getVersion(), caller.principalId(), nodeId, claim.accepted(), claim.rejected());
        return Future.succeededFuture();
      });
  }

  private Future<Principal> approved(Principal p) {
    if (p == null) {
      return Future.failedFuture(PackErrors.principalNotApproved("deleted"));
    }
    if (!p.approved()) {
      return Future.failedFuture(PackErrors.principalNotApproved(p.status().wire()));
    }
    return Future.succeededFuture(p);
  }

  /** The older stream of the same pack is closed wherever it is. */
  private void supersede(PackRecord old) {
    if (old.node().equals(nodeId)) {
      local.get(old.connection()).ifPresent(c -> c.close("superseded", PackErrors.superseded(old.packId())));
      return;
    }
    vertx.eventBus().request(Addresses.packHostNode(old.node()), PackNodeOps.supersede(old.packId(), old.connection()),
        new DeliveryOptions().setSendTimeout(5_000))
      .onFailure(err -> LOG.warn("supersede not delivered pack={} node={} error={}", old.packId(), old.node(), err.getMessage()));
  }

  /**
   * Pings the pack's connection every interval; a PING still unanswered two intervals after it was
   * sent ends the registration. The PINGs overlap, so one answer lost on the way costs nothing:
   * Vert.x matches answers to PINGs in order, and the next answer, an interval later, completes it.
   */
  private void watch(PackConnection connection, GrpcServerRequest<PackManifest, ExecuteToolRequest> request) {
    long every = pingInterval.toMillis();
    long patience = 2 * every;
    vertx.setPeriodic(every, every, id -> {
      if (local.get(connection.connectionId()).isEmpty()) {
        vertx.cancelTimer(id);
        return;
      }
      boolean[] answered = {false};
      long deadline = vertx.setTimer(patience, t -> {
        if (!answered[0]) {
          vertx.cancelTimer(id);
          connection.close("no ping answer", PackErrors.packSilent(patience / 1000));
        }
      });
      request.connection().ping(Buffer.buffer("conclave")).onComplete(ar -> {
        answered[0] = true;
        vertx.cancelTimer(deadline);
        if (ar.failed()) {
          vertx.cancelTimer(id);
          connection.close("ping failed: " + ar.cause().getMessage(), PackErrors.packSilent(pingInterval.toSeconds()));
        }
      });
    });
  }

  private void closed(PackConnection connection) {
    local.remove(connection);
    registry.release(connection.record(), "stream ended")
      .onComplete(ar -> LOG.info("pack unregistered pack={} node={} connection={}{}", connection.packId(), nodeId,
        connection.connectionId(), ar.failed() ? " release-error=" + Failures.classify(ar.cause()).detail() : ""));
  }
}
