package dev.conclave.e2e.faults;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link GatewayChecker} on hand-made histories and ledgers: a clean run passes, each kind of fault fails its invariant. */
class GatewayCheckerTest {

  private static final String C = "load-0";
  private static final String R1 = "11111111-1111-1111-1111-111111111111";
  private static final String R2 = "22222222-2222-2222-2222-222222222222";

  /** A conversation's ledger and mailbox, built event by event. */
  private static final class Ledger {
    final List<GatewayLedger.Event> events = new ArrayList<>();
    final List<GatewayLedger.Request> requests = new ArrayList<>();

    Ledger event(String request, String kind) {
      events.add(new GatewayLedger.Event(C, events.size() + 1, Optional.ofNullable(request), kind, kind.equals("inbound") ? "admin" : "agent",
        "", kind.equals("error")));
      return this;
    }

    Ledger request(String id, String key, String state) {
      requests.add(new GatewayLedger.Request(id, C, C, key, state, Optional.of(Instant.now()), Optional.of(Instant.now()), Optional.of(1L)));
      return this;
    }

    GatewayLedger build() {
      return new GatewayLedger(events, requests);
    }
  }

  private static Ledger cleanLedger() {
    return new Ledger().event(R1, "inbound").event(R1, "text").event(R1, "done").event(R2, "inbound").event(R2, "text").event(R2, "done")
      .request(R1, "k1", "done").request(R2, "k2", "done");
  }

  private static void send(History h, String key, String messageId) {
    Op invoke = h.invoke("client-0", GatewayOps.SEND, key, Map.of(GatewayOps.CONVERSATION, C));
    h.ok(invoke, Map.of(GatewayOps.MESSAGE_ID, messageId, GatewayOps.STATUS, "accepted"));
  }

  private static void resume(History h, long since, int stream) {
    h.observe("follower-0", GatewayOps.RESUME, "", Map.of(GatewayOps.CONVERSATION, C, GatewayOps.SINCE, Long.toString(since),
      GatewayOps.STREAM, Integer.toString(stream), GatewayOps.ENDPOINT, "127.0.0.1:1"));
  }

  private static void seen(History h, long id, String kind, String request, int stream) {
    java.util.HashMap<String, String> data = new java.util.HashMap<>(Map.of(GatewayOps.CONVERSATION, C, GatewayOps.ID, Long.toString(id),
      GatewayOps.KIND, kind, GatewayOps.STREAM, Integer.toString(stream)));
    if (kind.equals("inbound")) {
      data.put(GatewayOps.EVENT_ID, Long.toString(id));
    }
    h.observe("follower-0", GatewayOps.EVENT, request, data);
  }

  private static void deliver(History h, String request, int session, int inFlight) {
    h.observe("agent-0", GatewayOps.DELIVER, request, Map.of(GatewayOps.AGENT, C, GatewayOps.SESSION, Integer.toString(session),
      GatewayOps.IN_FLIGHT, Integer.toString(inFlight)));
  }

  /** Two messages answered; the follower's stream is lost after event 3 and resumes from it. */
  private static History cleanHistory() {
    History h = new History();
    resume(h, 0, 1);
    send(h, "k1", R1);
    deliver(h, R1, 1, 0);
    seen(h, 1, "inbound", R1, 1);
    seen(h, 2, "text", R1, 1);
    seen(h, 3, "done", R1, 1);
    resume(h, 3, 2);
    send(h, "k2", R2);
    deliver(h, R2, 1, 0);
    seen(h, 4, "inbound", R2, 2);
    seen(h, 5, "text", R2, 2);
    seen(h, 6, "done", R2, 2);
    return h;
  }

  @Test
  void aCleanRunPasses() {
    Verdict v = GatewayChecker.check(cleanHistory(), cleanLedger().build());
    System.out.println(v);
    assertThat(v.valid()).as(v.toString()).isTrue();
    assertThat(v.invariant(RequestEndings.NAME).orElseThrow().get("done")).isEqualTo(2);
    assertThat(v.invariant(StreamResumes.NAME).orElseThrow().get("events")).isEqualTo(6);
    v.assertValid();
  }

  @Test
  void aLostEventOnResumeFails() {
    History h = new History();
    resume(h, 0, 1);
    send(h, "k1", R1);
    seen(h, 1, "inbound", R1, 1);
    resume(h, 1, 2);
    seen(h, 2, "done", R1, 2); // the text (event 2) was lost: what arrives as the 2nd event is the done
    Verdict v = GatewayChecker.check(h, new Ledger().event(R1, "inbound").event(R1, "text").event(R1, "done").request(R1, "k1", "done").build());
    assertThat(v.failed()).as(v.toString()).contains(StreamResumes.NAME);
    assertThat(v.invariant(StreamResumes.NAME).orElseThrow().examples().get(0)).contains("event 2 was done").contains("text");
    assertThatThrownBy(v::assertValid).isInstanceOf(AssertionError.class).hasMessageContaining("FAIL " + StreamResumes.NAME);
  }

  @Test
  void aDuplicatedEventOnResumeFails() {
    History h = new History();
    resume(h, 0, 1);
    send(h, "k1", R1);
    seen(h, 1, "inbound", R1, 1);
    seen(h, 2, "text", R1, 1);
    resume(h, 2, 2);
    seen(h, 3, "text", R1, 2); // event 2 again after the resume
    seen(h, 4, "done", R1, 2);
    Verdict v = GatewayChecker.check(h, new Ledger().event(R1, "inbound").event(R1, "text").event(R1, "done").request(R1, "k1", "done").build());
    assertThat(v.failed()).as(v.toString()).contains(StreamResumes.NAME);
    assertThat(v.invariant(StreamResumes.NAME).orElseThrow().examples().toString()).contains("event 3 was text").contains("not have");
  }

  @Test
  void aResumeFromTheWrongPlaceFails() {
    History h = new History();
    resume(h, 0, 1);
    seen(h, 1, "inbound", R1, 1);
    seen(h, 2, "text", R1, 1);
    resume(h, 1, 2);
    seen(h, 2, "text", R1, 2);
    Verdict v = GatewayChecker.check(h, new Ledger().event(R1, "inbound").event(R1, "text").build());
    assertThat(v.invariant(StreamResumes.NAME).orElseThrow().examples().toString()).contains("resumed after event 1 but had seen up to 2")
      .contains("(a repeat)");
  }

  @Test
  void aRequestEndingTwiceFails() {
    Ledger ledger = new Ledger().event(R1, "inbound").event(R1, "text").event(R1, "done").event(R1, "error").request(R1, "k1", "done");
    History h = new History();
    send(h, "k1", R1);
    Verdict v = GatewayChecker.check(h, ledger.build());
    assertThat(v.failed()).as(v.toString()).contains(RequestEndings.NAME);
    assertThat(v.invariant(RequestEndings.NAME).orElseThrow().examples().get(0)).contains("ended 2 times");
  }

  @Test
  void aFollowerSeeingAnEndingTwiceFails() {
    History h = cleanHistory();
    seen(h, 7, "done", R2, 2);
    Verdict v = GatewayChecker.check(h, cleanLedger().build());
    assertThat(v.invariant(RequestEndings.NAME).orElseThrow().examples().toString()).contains("saw request " + R2 + " end 2 times");
  }

  @Test
  void anAckedMessageMissingFromTheLedgerFails() {
    History h = cleanHistory();
    send(h, "k3", "33333333-3333-3333-3333-333333333333");
    Verdict v = GatewayChecker.check(h, cleanLedger().build());
    assertThat(v.failed()).as(v.toString()).contains(AckedMessages.NAME, RequestEndings.NAME);
    assertThat(v.invariant(AckedMessages.NAME).orElseThrow().examples().get(0)).contains("k3").contains("no request with that key");
  }

  @Test
  void oneIdempotencyKeyAcceptedAsTwoMessagesFails() {
    History h = cleanHistory();
    send(h, "k1", R2);
    Verdict v = GatewayChecker.check(h, cleanLedger().build());
    assertThat(v.invariant(AckedMessages.NAME).orElseThrow().examples().toString()).contains("accepted as several messages");
  }

  @Test
  void twoRequestsInFlightAtOnceFail() {
    Ledger interleaved = new Ledger().event(R1, "inbound").event(R2, "inbound").event(R1, "text").event(R2, "text").event(R1, "done")
      .event(R2, "done").request(R1, "k1", "done").request(R2, "k2", "done");
    History h = new History();
    send(h, "k1", R1);
    send(h, "k2", R2);
    deliver(h, R1, 1, 0);
    deliver(h, R2, 1, 1);
    Verdict v = GatewayChecker.check(h, interleaved.build());
    assertThat(v.failed()).as(v.toString()).containsExactly(OneInFlight.NAME);
    assertThat(v.invariant(OneInFlight.NAME).orElseThrow().examples().toString()).contains("while request " + R1 + " was in flight")
      .contains("while 1 other(s) were unanswered");
  }

  @Test
  void aRedeliveryOnTheSameSessionFailsButAfterAReconnectIsOnlyCounted() {
    History again = cleanHistory();
    deliver(again, R1, 2, 0);
    Verdict counted = GatewayChecker.check(again, cleanLedger().build());
    assertThat(counted.valid()).as(counted.toString()).isTrue();
    assertThat(counted.invariant(Deliveries.NAME).orElseThrow().get("redelivered")).isEqualTo(1);

    History same = cleanHistory();
    deliver(same, R1, 1, 0);
    Verdict v = GatewayChecker.check(same, cleanLedger().build());
    assertThat(v.invariant(Deliveries.NAME).orElseThrow().examples().toString()).contains("handed 2 times to load-0 session 1");
  }
}
