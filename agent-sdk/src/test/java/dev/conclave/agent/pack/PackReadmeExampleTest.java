package dev.conclave.agent.pack;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.examples.ExamplePack;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackManifest;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the README's pack example honest: the block is {@code ExamplePack}, and the pack works. */
class PackReadmeExampleTest extends PackTestBase {

  private static final String SECTION = "## Writing a tool pack";

  @Test
  void theReadmeShowsExamplePackVerbatim() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    assertThat(readme).contains(SECTION);
    String section = readme.substring(readme.indexOf(SECTION));
    int start = section.indexOf("```java\n") + "```java\n".length();
    String block = section.substring(start, section.indexOf("\n```", start));

    String source = Files.readString(Path.of("src/test/java/dev/conclave/agent/examples/ExamplePack.java"));
    String fromImports = source.substring(source.indexOf("\nimport ") + 1).stripTrailing();

    assertThat(block).isEqualTo(fromImports);
  }

  @Test
  void theWeatherPackRegistersAndAnswers() {
    FakePackHost host = host();
    PackClient pack = ExamplePack.create(vertx, new String[] {host.endpoint().toString()}, TOKEN);
    try {
      PackRegistration reg = Wait.result(pack.start());
      assertThat(reg.liveTools()).containsExactly("get_weather");
      PackStream stream = host.nextStream();
      PackManifest m = stream.manifest();
      assertThat(m.getPackId()).isEqualTo("weather");
      assertThat(m.getTools(0).getTimeoutSeconds()).isEqualTo(10);

      stream.call("r1", "get_weather", "{\"city\":\"Paris\"}");
      stream.call("r2", "get_weather", "{\"city\":\"Atlantis\"}");
      ExecuteToolResponse first = host.nextResult();
      ExecuteToolResponse second = host.nextResult();
      ExecuteToolResponse paris = first.getRequestId().equals("r1") ? first : second;
      ExecuteToolResponse atlantis = paris == first ? second : first;

      assertThat(new JsonObject(paris.getOutputJson())).isEqualTo(new JsonObject().put("city", "Paris").put("celsius", 21));
      assertThat(atlantis.getError()).isEqualTo("unknown city: Atlantis");
    } finally {
      Wait.result(pack.close());
    }
  }
}
