package dev.conclave.e2e.console;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static dev.conclave.e2e.console.ConsolePage.EVENT;
import static dev.conclave.e2e.console.ConsolePage.LIVE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console at scale, in headless Chromium against a real node: a fleet of 1,000 connected agents
 * and a conversation of 10,000 events. The page renders what is visible and pages the rest, so the
 * DOM stays small whatever the size of the fleet or the conversation, and everything stays reachable
 * (search finds any agent, scroll-back reaches older events without a gap). How long each step took
 * is printed, never asserted.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsoleScaleIT {

  private static final int FLEET = 1000;
  private static final int EVENTS = 10_000;
  private static final String AGENT_ID = "console-scale-agent";

  private static ConsoleCluster cluster;
  private static ConsoleApi admin;
  private static ManyAgents fleet;
  private static ScriptedAgent agent;
  private static ConsolePage page;

  @RegisterExtension
  static final FailureReport REPORT = new FailureReport(() -> page == null ? List.of() : List.of(page.browser()), () -> cluster);

  @BeforeAll
  static void start() throws Exception {
    cluster = new ConsoleCluster(1);
    cluster.startAll();
    String adminToken = cluster.adminToken();
    admin = new ConsoleApi(cluster.httpPort(0), adminToken);
    agent = new ScriptedAgent(AGENT_ID, admin.newToken(admin.newPrincipal("agent", "Scale agent")), cluster.grpcPort(0));
    agent.start(Duration.ofSeconds(30));
    fleet = new ManyAgents(cluster.grpcPort(0), adminToken);
    long t = System.nanoTime();
    fleet.connect(0, FLEET, 50);
    System.out.printf("scale: %d agents connected in %d ms%n", FLEET, (System.nanoTime() - t) / 1_000_000);
    page = new ConsolePage("scale", "http://127.0.0.1:" + cluster.httpPort(0) + "/");
    page.logIn(adminToken);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : Arrays.asList(page, fleet, agent, cluster)) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("clean-up: " + e);
      }
    }
  }

  @Test
  void a_fleet_of_a_thousand_agents_renders_only_what_is_visible_and_stays_live() throws Exception {
    Browser b = page.browser();
    long t = System.nanoTime();
    page.go("#/agents");
    b.awaitTrue(LIVE, "the agents view counting the fleet",
      () -> String.valueOf(b.text(".view-head p")).startsWith((FLEET + 1) + " connected"));
    System.out.printf("scale: agents view with %d agents shown in %d ms%n", FLEET + 1, (System.nanoTime() - t) / 1_000_000);
    assertThat(b.count("[data-testid=agent-row]")).as("agent rows in the DOM for %d agents", FLEET + 1).isBetween(1, 100);

    b.type("#agent-search", ManyAgents.id(FLEET - 1));
    b.awaitTrue(LIVE, "the search finding the last agent", () -> b.count("[data-testid=agent-row]") == 1
      && b.present(ConsolePage.agentRow(ManyAgents.id(FLEET - 1))));

    // one more agent joins: the page follows it live, with a thousand others on screen
    b.type("#agent-search", ManyAgents.id(FLEET));
    // on a connection of its own, as an agent in the field is (the fleet's connection is ManyAgents')
    try (ManyAgents newcomer = new ManyAgents(cluster.grpcPort(0), admin.token())) {
      newcomer.connect(FLEET, FLEET + 1, 1);
      b.awaitTrue(Duration.ofSeconds(5), "the newcomer's row, live", () -> b.present(ConsolePage.agentRow(ManyAgents.id(FLEET))));
    }
  }

  @Test
  void a_ten_thousand_event_conversation_keeps_a_bounded_page_and_scrolls_back_without_gaps() throws Exception {
    Browser b = page.browser();
    page.openConversation(AGENT_ID);
    long t = System.nanoTime();
    admin.sendMessage(AGENT_ID, "many " + EVENTS);
    b.awaitTrue(Duration.ofSeconds(120), "the reply's end on the page", () -> b.present(ConsolePage.DONE));
    long last = admin.lastSeq(AGENT_ID);
    System.out.printf("scale: %d events streamed live to the page in %d ms%n", last, (System.nanoTime() - t) / 1_000_000);
    assertThat(last).as("events in the conversation's ledger").isGreaterThanOrEqualTo(EVENTS);
    assertThat(b.count(EVENT)).as("event elements in the DOM for %d events", last).isBetween(1, 1000);
    assertNoGap(page.seqs(), last);

    // a fresh look: the newest page first, older ones on demand, never more than the cap
    page.go("#/agents");
    t = System.nanoTime();
    page.openConversation(AGENT_ID);
    b.awaitTrue(LIVE, "the newest events", () -> page.seqs().contains(last));
    System.out.printf("scale: conversation of %d events opened in %d ms%n", last, (System.nanoTime() - t) / 1_000_000);
    int shown = b.count(EVENT);
    for (int i = 0; i < 6; i++) {
      long oldest = page.seqs().get(0);
      b.click("#load-older", LIVE, "load older");
      b.awaitTrue(LIVE, "older events loaded", () -> {
        List<Long> now = page.seqs();
        return !now.isEmpty() && now.get(0) < oldest;
      });
      assertThat(b.count(EVENT)).as("event elements after loading older ones").isLessThanOrEqualTo(1000);
      // one snapshot of the DOM: the virtual list re-renders its window between two reads of it
      List<Long> shownNow = page.seqs();
      assertNoGap(shownNow, shownNow.isEmpty() ? 0 : shownNow.get(shownNow.size() - 1));
    }
    assertThat(page.seqs().get(0)).as("how far back scrolling reached").isLessThan(last - shown);
  }

  /** The page shows a run of consecutive events ending at {@code newest}. */
  private static void assertNoGap(List<Long> seqs, long newest) {
    assertThat(seqs).as("the page's events").isNotEmpty();
    long first = seqs.get(0);
    assertThat(seqs).as("consecutive events, each once").containsExactlyElementsOf(LongStream.rangeClosed(first, newest).boxed().toList());
  }
}
