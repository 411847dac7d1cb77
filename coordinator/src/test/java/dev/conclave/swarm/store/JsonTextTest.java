package dev.conclave.swarm.store;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** PostgreSQL's jsonb text made compact, and nothing else about it changed. */
class JsonTextTest {

  @Test
  void postgresSpacingGoesAndStringsStayAsTheyWere() {
    // as PostgreSQL writes jsonb: a space after every ':' and ','; strings may hold both, and quotes
    String jsonb = "{\"task\": {\"id\": \"t-1\", \"files\": [], \"title\": \"fix: a, b \\\"and\\\" c\", \"n\": 1.50},"
      + " \"success\": true, \"relatedLearnings\": [\"x\\\\\", \"y\"], \"none\": null}";
    String compact = JsonText.compact(jsonb);
    assertThat(compact).isEqualTo("{\"task\":{\"id\":\"t-1\",\"files\":[],\"title\":\"fix: a, b \\\"and\\\" c\",\"n\":1.50},"
      + "\"success\":true,\"relatedLearnings\":[\"x\\\\\",\"y\"],\"none\":null}");
    assertThat(new JsonObject(compact)).isEqualTo(new JsonObject(jsonb));
  }

  @Test
  void compactTextIsTheSameInstance() {
    String compact = "{\"success\":true,\"note\":\"a b\"}";
    assertThat(JsonText.compact(compact)).isSameAs(compact);
    assertThat(JsonText.compact(null)).isNull();
  }
}
