package dev.conclave.node.access;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The style's checker itself: what it takes, and that it notices each way of breaking the style. */
class JsonStyleRulesTest {

  private static List<String> check(int status, String contentType, String body, Set<String> userKeyed) {
    return JsonStyle.check(status, contentType, body, userKeyed, Set.of("timestamp"), Map.of("p-1", "principalId"), Set.of(), new HashSet<>());
  }

  @Test
  void compactCamelCaseJsonPasses() {
    assertThat(check(200, "application/json", "{\"agentId\":\"a b\",\"items\":[{\"createdAt\":\"2026-01-02T03:04:05.123Z\"}],\"n\":1}",
      Set.of())).isEmpty();
    assertThat(check(404, "application/problem+json", "{\"type\":\"urn:conclave:problem:x\",\"status\":404}", Set.of())).isEmpty();
    assertThat(check(204, null, "", Set.of())).isEmpty();
  }

  @Test
  void spacingOutsideStringsIsReported() {
    assertThat(check(200, "application/json", "{\"a\": 1, \"b\": \"x, y: z\"}", Set.of()))
      .containsExactly("not compact: whitespace after '{\"a\":'");
    assertThat(check(200, "application/json", "{\"a\":\"x: y, z\"}", Set.of())).isEmpty();
    assertThat(check(200, "application/json", "{\"a\":\"say \\\"hi\\\" , then\"}", Set.of())).isEmpty();
  }

  @Test
  void namesThatAreNotCamelCaseAreReportedWithTheirPlace() {
    assertThat(check(200, "application/json", "{\"agents\":[{\"agent_id\":\"x\"},{\"agent_id\":\"y\"}],\"Other\":1}", Set.of()))
      .containsExactly("member 'agents[].agent_id' is not camelCase", "member 'Other' is not camelCase");
  }

  @Test
  void aUserKeyedMapIsLeftAsItIs() {
    Set<String> met = new HashSet<>();
    assertThat(JsonStyle.check(200, "application/json", "{\"messages\":[{\"payload\":{\"file_path\":1}}]}", Set.of("messages[].payload"),
      Set.of(), Map.of(), Set.of(), met)).isEmpty();
    assertThat(met).containsExactly("messages[].payload");
    assertThat(check(200, "application/json", "{\"messages\":[{\"payload\":{\"file_path\":1}}]}", Set.of()))
      .containsExactly("member 'messages[].payload.file_path' is not camelCase");
  }

  @Test
  void pointsInTimeAreUtcAndNamedAt() {
    assertThat(check(200, "application/json", "{\"lastSeen\":\"2026-01-02T03:04:05Z\"}", Set.of()))
      .containsExactly("point in time 'lastSeen' is not named 'at' or '…At'");
    assertThat(check(200, "application/json", "{\"at\":\"2026-01-02T03:04:05+00:00\"}", Set.of()))
      .containsExactly("point in time 'at' is not ISO-8601 in UTC (…Z): 2026-01-02T03:04:05+00:00");
    assertThat(check(200, "application/json", "{\"timestamp\":\"2026-01-02T03:04:05Z\"}", Set.of())).isEmpty();
  }

  @Test
  void aKnownThingsIdGoesByItsOwnName() {
    assertThat(check(200, "application/json", "{\"principals\":[{\"id\":\"p-1\"}]}", Set.of()))
      .containsExactly("member 'principals[].id' is principalId everywhere else");
    assertThat(check(200, "application/json", "{\"principals\":[{\"principalId\":\"p-1\",\"ownerId\":\"p-1\"}],\"id\":\"p-2\"}", Set.of()))
      .isEmpty();
  }

  @Test
  void aBareIdAnotherSpecificationNamesIsLeftWhereItIsDeclared() {
    Set<String> met = new HashSet<>();
    assertThat(JsonStyle.check(200, "application/json", "{\"agents\":[{\"id\":\"p-1\"}]}", Set.of(), Set.of(),
      Map.of("p-1", "agentId"), Set.of("agents[].id"), met)).isEmpty();
    assertThat(met).containsExactly("agents[].id");
    assertThat(JsonStyle.check(200, "application/json", "{\"agents\":[{\"id\":\"p-1\"}],\"other\":{\"id\":\"p-1\"}}", Set.of(),
      Set.of(), Map.of("p-1", "agentId"), Set.of("agents[].id"), new HashSet<>()))
      .containsExactly("member 'other.id' is agentId everywhere else");
  }

  @Test
  void theContentTypeFollowsTheStatus() {
    assertThat(check(200, "text/plain", "{}", Set.of())).containsExactly("content-type text/plain, not application/json");
    assertThat(check(400, "application/json", "{}", Set.of())).containsExactly("content-type application/json, not application/problem+json");
    assertThat(check(200, "application/json;charset=UTF-8", "{}", Set.of())).isEmpty();
  }
}
