package dev.conclave.agentruntime.config;

import dev.conclave.agent.Endpoint;
import dev.conclave.settings.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With no {@code --endpoints}, the agent program looks for the local node where the node listens: on
 * {@code CONCLAVE_GRPC_PORT} when that is set (the variable the node itself reads), else on 50051.
 * A user who ran the node on another port needs no second variable for the agent.
 */
class EndpointDefaultTest {

  @TempDir
  Path dir;

  private List<Endpoint> endpoints(Map<Setting<?>, String> flags, Map<String, String> env) {
    Map<Setting<?>, String> f = new HashMap<>(flags);
    f.put(AgentSettings.WORKDIR, dir.toString());
    Map<String, String> e = new HashMap<>(env);
    e.put("CONCLAVE_AGENT_TOKEN", "t");
    return RuntimeConfig.from(SettingValues.of(f, e), "h").endpoints();
  }

  @Test
  void theNodesDefaultPortWhenNothingIsSet() {
    assertThat(endpoints(Map.of(), Map.of())).containsExactly(Endpoint.parse("localhost:50051"));
  }

  @Test
  void theNodesGrpcPortWhenItIsSet() {
    assertThat(endpoints(Map.of(), Map.of("CONCLAVE_GRPC_PORT", "26051"))).containsExactly(Endpoint.parse("localhost:26051"));
  }

  @Test
  void givenEndpointsWinOverTheNodesPort() {
    assertThat(endpoints(Map.of(AgentSettings.ENDPOINTS, "gw:7000"), Map.of("CONCLAVE_GRPC_PORT", "26051")))
      .containsExactly(Endpoint.parse("gw:7000"));
    assertThat(endpoints(Map.of(), Map.of("CONCLAVE_GRPC_PORT", "26051", "CONCLAVE_ENDPOINTS", "gw:7001")))
      .containsExactly(Endpoint.parse("gw:7001"));
  }
}
