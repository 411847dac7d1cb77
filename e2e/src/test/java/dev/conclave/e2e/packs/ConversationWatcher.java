package dev.conclave.e2e.packs;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.AnswerQuestionResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Vertx;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

/**
 * A client following one conversation on one node with {@code StreamEvents} (live, from now on),
 * the way a UI would, and answering the agent's questions with {@code AnswerQuestion} on the same
 * node. Blocking helpers; tests only.
 */
final class ConversationWatcher implements AutoCloseable {

  private final GrpcCalls grpc;
  private final String authorization;
  private final BlockingQueue<ClientStreamEvent> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<String> end = new CompletableFuture<>();
  private final List<ClientStreamEvent> seen = new ArrayList<>();
  private final GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> call;

  ConversationWatcher(Vertx vertx, int grpcPort, String token, String conversationKey) {
    this.grpc = new GrpcCalls(vertx, grpcPort);
    this.authorization = GrpcCalls.bearer(token);
    this.call = Await.await(grpc.open(ClientServiceGrpcClient.StreamEvents, authorization), Duration.ofSeconds(10), "StreamEvents");
    call.response().onComplete(ar -> {
      if (ar.failed()) {
        end.complete("failed: " + ar.cause());
        return;
      }
      var response = ar.result();
      response.handler(events::add);
      response.endHandler(v -> end.complete("ended: " + response.status() + " " + response.statusMessage()));
      response.exceptionHandler(err -> end.complete("failed: " + err));
    });
    call.end(StreamEventsRequest.newBuilder().setConversationKey(conversationKey).build());
  }

  /** Reads events until a user question arrives, waiting up to {@code limit}. */
  UserQuestionRequest awaitQuestion(Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        ClientStreamEvent e = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
        if (e == null) {
          throw new AssertionError("no user_question within " + limit.toSeconds() + " s (stream " + end.getNow("open") + "); seen: " + seen);
        }
        seen.add(e);
        if (e.hasUserQuestion()) {
          return e.getUserQuestion();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** AnswerQuestion on this watcher's node; the call itself must succeed (the answer may still be refused). */
  AnswerQuestionResponse answer(String agentId, String questionId, String... selected) {
    return answer(grpc, authorization, agentId, questionId, selected);
  }

  static AnswerQuestionResponse answer(GrpcCalls on, String authorization, String agentId, String questionId, String... selected) {
    var outcome = on.unary(ClientServiceGrpcClient.AnswerQuestion, AnswerQuestionRequest.newBuilder().setAgentId(agentId)
      .setQuestionId(questionId).addAllSelected(List.of(selected)).build(), authorization);
    if (outcome.status() != GrpcStatus.OK) {
      throw new AssertionError("AnswerQuestion failed: " + outcome.status() + " " + outcome.message());
    }
    return outcome.response().orElseThrow();
  }

  @Override
  public void close() {
    if (!end.isDone()) {
      call.cancel();
    }
    grpc.close();
  }
}
