package dev.conclave.e2e.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A smaller storm than {@link ScaleBench}'s, in CI (issue 45): 3 nodes, 1,000 agents of the agent
 * SDK each on its own connection, clients keeping a steady load, kill -9 of the node holding a
 * third of the agents. Every accepted request reaches exactly one terminal event, and every moved
 * agent is registered on a survivor and serving within a bound generous enough for CI's noise.
 */
class ScaleStormIT {

  private static final int AGENTS = 1000;
  private static final Duration BOUND = Duration.ofSeconds(120);

  @Test
  @Timeout(value = 480, unit = TimeUnit.SECONDS)
  void aThirdOfAThousandAgentsMoveToTheSurvivorsAndNoRequestIsLostOrDoubled() throws Exception {
    StormRun.Result r = new StormRun(new StormRun.Settings(AGENTS, 12, Duration.ofSeconds(5), BOUND, Map.of()), System.out).run();
    System.out.println(r.lastLine());

    assertThat(r.moved()).as("agents on the killed node").isBetween(AGENTS / 3 - 5, AGENTS / 3 + 5);
    assertThat(r.registeredMs()).as("every moved agent registered on a survivor, ms after the kill").isLessThan(BOUND.toMillis());
    assertThat(r.servingMs()).as("every moved agent served a request, ms after the kill").isLessThan(BOUND.toMillis());
    assertThat(r.verdict().lostExamples()).as("accepted requests without a terminal event").isEmpty();
    assertThat(r.verdict().lost()).isZero();
    assertThat(r.verdict().duplicatedExamples()).as("requests with more than one terminal event, or given twice").isEmpty();
    assertThat(r.verdict().duplicated()).isZero();
    assertThat(r.before().requests()).as("round trips before the kill").isPositive();
    assertThat(r.storm().requests()).as("round trips during the storm").isPositive();
  }
}
