package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.ledger.EventCursors;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.gateway.streaming.ConversationFollower;
import dev.conclave.gateway.streaming.Followers;
import dev.conclave.platform.access.AccessTarget;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.GrpcFailures;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;

import java.util.Optional;

/**
 * {@code ClientService/StreamEvents}: follows a conversation the caller may read, from a resume
 * point, until the client goes away, the node stops (UNAVAILABLE, resume elsewhere), the
 * caller's credentials are revoked (UNAUTHENTICATED), or the caller loses access to the conversation
 * (PERMISSION_DENIED {@code access_revoked}: a grant taken back, a binding moved, a role removed).
 */
public final class EventStreams {

  static final String METHOD = "coven.ClientService/StreamEvents";

  private final Vertx vertx;
  private final LedgerStore ledger;
  private final ApprovalStore approvals;
  private final QuestionStore questions;
  private final ConversationAccess conversations;
  private final Followers followers;
  private final LiveCredentials live;
  private final LiveAccess access;
  private final Counter catchups;

  public EventStreams(Vertx vertx, LedgerStore ledger, ApprovalStore approvals, QuestionStore questions, ConversationAccess conversations,
                      Followers followers, LiveCredentials live, LiveAccess access, Counter catchups) {
    this.vertx = vertx;
    this.ledger = ledger;
    this.approvals = approvals;
    this.questions = questions;
    this.conversations = conversations;
    this.followers = followers;
    this.live = live;
    this.access = access;
    this.catchups = catchups;
  }

  public void follow(Caller caller, StreamEventsRequest message, GrpcServerRequest<StreamEventsRequest, ClientStreamEvent> request) {
    // taken before the check: a change of access heard while it runs is checked again once watched
    long mark = access.mark();
    Future.succeededFuture(message).compose(req -> req.getConversationKey().isBlank() ? Future.succeededFuture(req)
      : conversations.require(caller, req.getConversationKey()).map(req)).onComplete(ar -> {
      if (ar.failed()) {
        GrpcFailures.fail(request.response(), METHOD, ar.cause());
        return;
      }
      StreamEventsRequest req = ar.result();
      try {
        if (req.getConversationKey().isBlank()) {
          throw GatewayErrors.required("conversation_key");
        }
        Optional<Long> since = req.hasSinceEventId() && !req.getSinceEventId().isEmpty()
          ? Optional.of(EventCursors.parseEventId(req.getSinceEventId())) : Optional.empty();
        start(caller, request, req.getConversationKey(), since, mark);
      } catch (ConclaveException e) {
        GrpcFailures.fail(request.response(), METHOD, e);
      }
    });
  }

  private void start(Caller caller, GrpcServerRequest<StreamEventsRequest, ClientStreamEvent> request, String key, Optional<Long> since,
                     long mark) {
    GrpcServerResponse<StreamEventsRequest, ClientStreamEvent> response = request.response();
    ConversationFollower follower = new ConversationFollower(vertx, ledger, approvals, questions, response, key, catchups);
    Runnable[] unwatch = {() -> { }, () -> { }};
    Runnable[] closer = new Runnable[1];
    Runnable stop = () -> {
      follower.stop();
      followers.remove(closer[0]);
      unwatch[0].run();
      unwatch[1].run();
    };
    closer[0] = () -> {
      stop.run();
      GrpcFailures.fail(response, METHOD, GatewayErrors.nodeStopping());
    };
    followers.add(closer[0], follower::resubscribe);
    unwatch[0] = live.watch(caller, reason -> {
      stop.run();
      GrpcFailures.fail(response, METHOD, AuthErrors.credentialsRevoked(reason));
    });
    unwatch[1] = access.watch(caller, AccessTarget.conversation(Audience.MEMBERS, key), mark, lost -> {
      stop.run();
      GrpcFailures.fail(response, METHOD, lost);
    })::close;
    request.exceptionHandler(err -> stop.run());
    request.errorHandler(err -> stop.run());
    response.exceptionHandler(err -> stop.run());
    // the headers go out once the follower is live, so a client that waits for them misses nothing
    // sent after that (an event written earlier already carried them)
    follower.start(since).onSuccess(v -> {
      try {
        response.writeHead();
      } catch (IllegalStateException alreadySent) {
        // a resent approval or question went first
      }
    }).onFailure(err -> {
      stop.run();
      GrpcFailures.fail(response, METHOD, err);
    });
  }
}
