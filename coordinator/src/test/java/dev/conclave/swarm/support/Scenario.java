package dev.conclave.swarm.support;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One test's corner of a shared node: its own skill (so only its agents qualify for its tasks), its
 * own branch (so its quality baseline is its own), and short helpers over {@link SwarmApi}.
 */
public final class Scenario {

  private final SwarmApi api;
  public final String skill = "skill-" + UUID.randomUUID().toString().substring(0, 8);
  public final String branch = "branch-" + UUID.randomUUID().toString().substring(0, 8);

  public Scenario(SwarmApi api) {
    this.api = api;
  }

  public String agent(String... extraSkills) {
    return agent(true, extraSkills);
  }

  /** Registers an agent with this scenario's skill; {@code fullTooling}: canRunTests and canRunBuild. */
  public String agent(boolean fullTooling, String... extraSkills) {
    String id = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> skills = new ArrayList<>(List.of(extraSkills));
    skills.add(skill);
    JsonObject spec = SwarmApi.agentSpec(id, skills);
    spec.getJsonObject("capabilities").put("canRunTests", fullTooling).put("canRunBuild", fullTooling);
    Reply reply = api.post("/api/v1/agents/register", SwarmApi.v1().put("agent", spec));
    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    return id;
  }

  /** A task of this scenario (its skill and branch) with the given short name. */
  public JsonObject task(String name) {
    return new JsonObject().put("id", id(name)).put("title", "task " + name).put("requiredSkills", new JsonArray().add(skill))
      .put("branch", branch);
  }

  public String id(String name) {
    return name + "-" + skill;
  }

  public void create(JsonObject... tasks) {
    Reply reply = api.createTasks(new JsonArray(List.of((Object[]) tasks)));
    assertThat(reply.status()).as(reply.toString()).isEqualTo(201);
  }

  /** Creates the task and has {@code agentId} claim it; returns its id. */
  public String claimedBy(String agentId, JsonObject task) {
    create(task);
    Reply claim = api.claim(agentId);
    assertThat(claim.json().getBoolean("success")).as(claim.toString()).isTrue();
    assertThat(claim.json().getJsonObject("task").getString("id")).isEqualTo(task.getString("id"));
    return task.getString("id");
  }

  public static JsonObject metrics(int ran, int passed, int lint, int types, boolean build) {
    return new JsonObject().put("testsRan", ran).put("testsPassed", passed).put("lintErrors", lint).put("typeErrors", types)
      .put("buildSuccess", build);
  }
}
