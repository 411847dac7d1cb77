package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.GetEventsResponse;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** StreamEvents and GetEvents: resume without gap or duplicate, slow readers, paging. */
class StreamingTest {

  private static GatewayFixture gw;
  private static Clients admin;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    admin = gw.admin();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** The agent streams "e0".."e(n-1)" then done; ledger seq 1 is the inbound message, seq i+2 is "e<i>". */
  private static CompletableFuture<Void> produce(RawAgent agent, String requestId, int n) {
    return CompletableFuture.runAsync(() -> {
      for (int i = 0; i < n; i++) {
        agent.respond(requestId, MessageResponse.newBuilder().setText("e" + i));
      }
      agent.respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
    });
  }

  private static List<String> texts(List<ClientStreamEvent> events) {
    return events.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).toList();
  }

  private static List<String> expected(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("e" + i);
    }
    return out;
  }

  @Test
  void subscribersJoiningMidStreamSeeEveryEventOnceInOrder() throws Exception {
    int n = 600;
    try (RawAgent agent = gw.connect("handover", gw.agentToken("handover"))) {
      String r = admin.sendOk("handover", "stream please", "handover-1");
      agent.next();
      CompletableFuture<Void> producing = produce(agent, r, n);
      List<EventTap> taps = new ArrayList<>();
      List<Integer> resumePoints = List.of(0, 1, 50, 150, 300);
      for (int since : resumePoints) {
        // a client resumes from an event it has seen: wait until that event exists
        awaitEvents("handover", since);
        taps.add(admin.stream("handover", Integer.toString(since)));
      }
      producing.get(60, TimeUnit.SECONDS);
      for (int i = 0; i < taps.size(); i++) {
        int since = resumePoints.get(i);
        try (EventTap tap = taps.get(i)) {
          List<ClientStreamEvent> events = tap.until(EventTap::terminal);
          // seq since+1 is the first event sent; seq 1 is the inbound message, seq k (k>=2) is e(k-2)
          int firstText = Math.max(0, since - 1);
          assertThat(texts(events)).as("resumed after event " + since).isEqualTo(expected(firstText, n));
          assertThat(events.get(0).hasEvent()).isEqualTo(since == 0);
          assertThat(tap.poll(200)).isNull();
        }
      }
    }
  }

  @Test
  void aReaderThatStopsReadingFallsBackToTheLedgerAndMissesNothing() throws Exception {
    int n = 4000;
    double catchupsBefore = catchups();
    try (RawAgent agent = gw.connect("slowpoke", gw.agentToken("slowpoke"))) {
      var request = GatewayFixture.await(admin.grpc().open(ClientServiceGrpcClient.StreamEvents, admin.authorization()));
      List<ClientStreamEvent> received = new CopyOnWriteArrayList<>();
      CompletableFuture<Void> done = new CompletableFuture<>();
      request.end(StreamEventsRequest.newBuilder().setConversationKey("slowpoke").build());
      var response = GatewayFixture.await(request.response());
      response.pause();
      response.handler(e -> {
        received.add(e);
        if (EventTap.terminal(e)) {
          done.complete(null);
        }
      });
      Thread.sleep(200);
      String r = admin.sendOk("slowpoke", "flood me", "slowpoke-1");
      agent.next();
      for (int i = 0; i < n; i++) {
        agent.respond(r, MessageResponse.newBuilder().setText("e" + i + " " + "x".repeat(200)));
      }
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      Thread.sleep(1500);
      response.resume();
      done.get(60, TimeUnit.SECONDS);
      assertThat(received.get(received.size() - 1).getDone().hasFullResponse())
        .as("a response too large to assemble is left to the text events").isFalse();
      List<String> texts = received.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent().split(" ")[0]).toList();
      assertThat(texts).isEqualTo(expected(0, n));
      assertThat(catchups()).as("the reader fell behind and was served from the ledger").isGreaterThan(catchupsBefore);
      request.cancel();
    }
  }

  @Test
  void withoutSinceOnlyNewEventsAreSent() {
    try (RawAgent agent = gw.connect("fresh", gw.agentToken("fresh"))) {
      String old = admin.sendOk("fresh", "old", "fresh-1");
      agent.next();
      agent.respond(old, MessageResponse.newBuilder().setText("before"));
      agent.respond(old, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      awaitEvents("fresh", 3);
      try (EventTap tap = admin.stream("fresh", null)) {
        sleep(200);
        String now = admin.sendOk("fresh", "new", "fresh-2");
        agent.next();
        agent.respond(now, MessageResponse.newBuilder().setText("after"));
        agent.respond(now, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        assertThat(texts(tap.until(EventTap::terminal))).containsExactly("after");
      }
    }
  }

  @Test
  void badResumePointsAreRefused() {
    try (EventTap tap = admin.stream("handover", "not-a-number")) {
      assertThat(tap.awaitEnd()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
    try (EventTap tap = admin.stream("handover", "999999999")) {
      assertThat(tap.awaitEnd()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
    try (EventTap tap = admin.stream("", null)) {
      assertThat(tap.awaitEnd()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
  }

  @Test
  void getEventsPagesWithCursorsLimitsAndTimeRanges() {
    try (RawAgent agent = gw.connect("pages", gw.agentToken("pages"))) {
      String r = admin.sendOk("pages", "page me", "pages-1");
      agent.next();
      for (int i = 0; i < 24; i++) {
        agent.respond(r, MessageResponse.newBuilder().setText("p" + i));
      }
      agent.respond(r, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      awaitEvents("pages", 26);

      List<String> ids = new ArrayList<>();
      String cursor = null;
      int pages = 0;
      do {
        GetEventsRequest.Builder req = GetEventsRequest.newBuilder().setConversationKey("pages").setLimit(10);
        if (cursor != null) {
          req.setCursor(cursor);
        }
        GetEventsResponse page = getEvents(req).response().orElseThrow();
        page.getEventsList().forEach(e -> ids.add(e.getId()));
        cursor = page.getHasMore() ? page.getNextCursor() : null;
        pages++;
      } while (cursor != null);
      assertThat(pages).isEqualTo(3);
      assertThat(ids).hasSize(26).doesNotHaveDuplicates();
      assertThat(ids.get(0)).isEqualTo("1");
      assertThat(ids.get(25)).isEqualTo("26");

      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setLimit(0)).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setLimit(501)).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setLimit(500)).response().orElseThrow().getEventsCount()).isEqualTo(26);
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setCursor("garbage")).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setSince("yesterday")).status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setSince("2999-01-01T00:00:00Z"))
        .response().orElseThrow().getEventsCount()).isZero();
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setUntil("2000-01-01T00:00:00Z"))
        .response().orElseThrow().getEventsCount()).isZero();
      assertThat(getEvents(GetEventsRequest.newBuilder().setConversationKey("pages").setSince("2000-01-01T00:00:00Z").setUntil("2999-01-01T00:00:00+02:00").setLimit(100))
        .response().orElseThrow().getEventsCount()).isEqualTo(26);
    }
  }

  private static dev.conclave.platform.testing.GrpcCalls.Outcome<GetEventsResponse> getEvents(GetEventsRequest.Builder req) {
    return admin.grpc().unary(ClientServiceGrpcClient.GetEvents, req.build(), admin.authorization());
  }

  private static void awaitEvents(String key, int count) {
    for (int i = 0; i < 100; i++) {
      if (getEvents(GetEventsRequest.newBuilder().setConversationKey(key).setLimit(500)).response().orElseThrow().getEventsCount() >= count) {
        return;
      }
      sleep(50);
    }
    throw new AssertionError("conversation " + key + " never reached " + count + " events");
  }

  private static double catchups() {
    var c = gw.node().runtime().context().metrics().find(MetricNames.GATEWAY_SUBSCRIBER_CATCHUPS).counter();
    return c == null ? 0 : c.count();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
