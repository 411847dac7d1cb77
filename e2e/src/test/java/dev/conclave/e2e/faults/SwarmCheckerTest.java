package dev.conclave.e2e.faults;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link SwarmChecker} on hand-made histories and coordinator states. */
class SwarmCheckerTest {

  private static final Instant T0 = Instant.parse("2026-01-19T10:00:00Z");

  /** Task rows and history rows, built in order. */
  private static final class State {
    final List<SwarmState.Task> tasks = new ArrayList<>();
    final List<SwarmState.Event> events = new ArrayList<>();

    State task(String id, String status, String completedBy) {
      tasks.add(new SwarmState.Task(id, status, Optional.ofNullable(completedBy), Optional.ofNullable(completedBy)));
      return this;
    }

    State event(String task, String kind, String event, Map<String, String> data) {
      return eventAt(T0.plusMillis(events.size()), task, kind, event, data);
    }

    State eventAt(Instant at, String task, String kind, String event, Map<String, String> data) {
      events.add(new SwarmState.Event(task, events.size() + 1, kind, event, at, data));
      return this;
    }

    SwarmState build() {
      return new SwarmState(tasks, events);
    }
  }

  private static String claim(History h, String process, String agent, String task) {
    Op invoke = h.invoke(process, SwarmOps.CLAIM, "", Map.of(SwarmOps.AGENT, agent));
    h.complete(invoke, Op.Type.OK, task, Map.of());
    return task;
  }

  private static void lease(History h, String process, String agent, String task, String file, Instant expires) {
    Op invoke = h.invoke(process, SwarmOps.LEASE_ACQUIRE, file, Map.of(SwarmOps.AGENT, agent, SwarmOps.TASK, task));
    h.ok(invoke, Map.of(SwarmOps.GRANTED, "true", SwarmOps.EXPIRES_AT, expires.toString()));
  }

  private static void complete(History h, String process, String agent, String task) {
    Op invoke = h.invoke(process, SwarmOps.COMPLETE, task, Map.of(SwarmOps.AGENT, agent, SwarmOps.TASK, task));
    h.ok(invoke, Map.of());
  }

  @Test
  void aCleanRunPasses() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    lease(h, "claimer-0", "a0", "t1", "f", Instant.now().plusSeconds(5));
    complete(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t2");
    lease(h, "claimer-1", "a1", "t2", "f", Instant.now().plusSeconds(5));
    complete(h, "claimer-1", "a1", "t2");
    State s = new State().task("t1", "completed", "a0").task("t2", "completed", "a1")
      .event("t1", "task", "claimed", Map.of("agentId", "a0"))
      .event("t1", "lease", "acquired", Map.of("agentId", "a0", "taskId", "t1", "expiresAt", T0.plusSeconds(5).toString()))
      .event("t1", "task", "completed", Map.of("agentId", "a0"))
      .event("t1", "lease", "released", Map.of("agentId", "a0", "taskId", "t1", "reason", "task_completed"))
      .event("t2", "task", "claimed", Map.of("agentId", "a1"))
      .event("t2", "lease", "acquired", Map.of("agentId", "a1", "taskId", "t2", "expiresAt", T0.plusSeconds(6).toString()))
      .event("t2", "task", "completed", Map.of("agentId", "a1"));
    Verdict v = SwarmChecker.check(h, s.build());
    System.out.println(v);
    assertThat(v.valid()).as(v.toString()).isTrue();
    assertThat(v.invariant(LeaseExclusivity.NAME).orElseThrow().get("granted")).isEqualTo(2);
  }

  @Test
  void aTaskClaimedTwiceWhileTheFirstClaimHoldsFails() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t1");
    State s = new State().task("t1", "claimed", null)
      .event("t1", "task", "claimed", Map.of("agentId", "a0"))
      .event("t1", "task", "claimed", Map.of("agentId", "a1"));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.failed()).as(v.toString()).containsExactly(TaskClaims.NAME);
    assertThat(v.invariant(TaskClaims.NAME).orElseThrow().examples().get(0)).contains("claimed by a1").contains("a0's claim");
  }

  @Test
  void aReclaimAfterAFailureIsLegal() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t1");
    State s = new State().task("t1", "claimed", null)
      .event("t1", "task", "claimed", Map.of("agentId", "a0"))
      .event("t1", "task", "failed", Map.of("agentId", "a0", "failureType", "agent_crash"))
      .event("t1", "task", "retry_ready", Map.of())
      .event("t1", "task", "claimed", Map.of("agentId", "a1"));
    assertThat(SwarmChecker.check(h, s.build()).valid()).isTrue();
  }

  @Test
  void aClaimAckedButNotRecordedFails() {
    History h = new History();
    claim(h, "claimer-1", "a1", "t1");
    State s = new State().task("t1", "claimed", null).event("t1", "task", "claimed", Map.of("agentId", "a0"));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.invariant(TaskClaims.NAME).orElseThrow().examples().get(0)).contains("a1 was told 1 time(s) that it claimed task t1");
  }

  @Test
  void overlappingLeasesOfTwoAgentsFail() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t2");
    lease(h, "claimer-0", "a0", "t1", "f", Instant.now().plusSeconds(60));
    lease(h, "claimer-1", "a1", "t2", "f", Instant.now().plusSeconds(60));
    State s = new State().task("t1", "claimed", null).task("t2", "claimed", null)
      .event("t1", "task", "claimed", Map.of("agentId", "a0"))
      .event("t2", "task", "claimed", Map.of("agentId", "a1"))
      .event("t1", "lease", "acquired", Map.of("agentId", "a0", "taskId", "t1", "expiresAt", T0.plusSeconds(60).toString()))
      .event("t2", "lease", "acquired", Map.of("agentId", "a1", "taskId", "t2", "expiresAt", T0.plusSeconds(60).toString()));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.failed()).as(v.toString()).containsExactly(LeaseExclusivity.NAME);
    assertThat(v.invariant(LeaseExclusivity.NAME).orElseThrow().examples().toString())
      .contains("f held by a0").contains("by a1").contains("per the acks").contains("f granted to a1").contains("in the coordinator's history");
  }

  @Test
  void aLeaseTakenOverAfterReleaseOrExpiryIsLegal() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    lease(h, "claimer-0", "a0", "t1", "f", Instant.now().plusSeconds(60));
    complete(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t2");
    lease(h, "claimer-1", "a1", "t2", "f", Instant.now().plusSeconds(60));
    State s = new State().task("t1", "completed", "a0").task("t2", "claimed", null)
      .event("t1", "task", "claimed", Map.of("agentId", "a0"))
      .event("t2", "task", "claimed", Map.of("agentId", "a1"))
      .event("t1", "lease", "acquired", Map.of("agentId", "a0", "taskId", "t1", "expiresAt", T0.plusMillis(3).toString()))
      .event("t2", "lease", "taken_over", Map.of("agentId", "a1", "taskId", "t2", "expiresAt", T0.plusSeconds(60).toString(),
        "previousAgent", "a0"))
      .event("t1", "task", "completed", Map.of("agentId", "a0"));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.valid()).as(v.toString()).isTrue();
  }

  @Test
  void aGrantAfterARelease_inSeqOrder_isLegalEvenWhenItsBatchTookAnEarlierTime() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    lease(h, "claimer-0", "a0", "t1", "f", Instant.now().plusSeconds(60));
    complete(h, "claimer-0", "a0", "t1");
    claim(h, "claimer-1", "a1", "t2");
    lease(h, "claimer-1", "a1", "t2", "f", Instant.now().plusSeconds(60));
    String expires = T0.plusSeconds(60).toString();
    State s = new State().task("t1", "completed", "a0").task("t2", "claimed", null)
      .eventAt(T0, "t1", "task", "claimed", Map.of("agentId", "a0"))
      .eventAt(T0, "t2", "task", "claimed", Map.of("agentId", "a1"))
      .eventAt(T0.plusMillis(50), "t1", "task", "completed", Map.of("agentId", "a0"))
      .eventAt(T0, "t1", "lease", "acquired", Map.of("agentId", "a0", "taskId", "t1", "expiresAt", expires))
      .eventAt(T0.plusMillis(50), "t1", "lease", "released", Map.of("agentId", "a0", "taskId", "t1", "reason", "task_completed"))
      .eventAt(T0.plusMillis(10), "t2", "lease", "acquired", Map.of("agentId", "a1", "taskId", "t2", "expiresAt", expires));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.valid()).as(v.toString()).isTrue();
  }

  @Test
  void anAckedCompletionMissingFails() {
    History h = new History();
    claim(h, "claimer-0", "a0", "t1");
    complete(h, "claimer-0", "a0", "t1");
    State s = new State().task("t1", "claimed", null).event("t1", "task", "claimed", Map.of("agentId", "a0"));
    Verdict v = SwarmChecker.check(h, s.build());
    assertThat(v.failed()).as(v.toString()).containsExactly(Completions.NAME);
    assertThat(v.invariant(Completions.NAME).orElseThrow().examples().toString()).contains("is claimed completed by nobody")
      .contains("no such completion");
  }
}
