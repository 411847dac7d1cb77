package dev.conclave.gateway.settings;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GatewaySettingsTest {

  @Test
  void theMcpEndpointIsThisNodeUnlessConfigured() {
    assertThat(GatewaySettings.from(ConclaveConfig.from(Map.of("CONCLAVE_HTTP_PORT", "18080", "CONCLAVE_PUBLIC_HOST", "gw.example")))
      .mcpEndpoint()).isEqualTo("http://gw.example:18080/mcp");
    assertThat(GatewaySettings.from(ConclaveConfig.from(Map.of("CONCLAVE_MCP_ENDPOINT", "https://packs.example/mcp"))).mcpEndpoint())
      .isEqualTo("https://packs.example/mcp");
  }

  @Test
  void aMcpEndpointThatIsNotAnHttpUrlStopsStartUpNamingTheVariable() {
    assertThatThrownBy(() -> GatewaySettings.from(ConclaveConfig.from(Map.of("CONCLAVE_MCP_ENDPOINT", "packs:8080"))))
      .isInstanceOf(ConfigException.class).hasMessageContaining("CONCLAVE_MCP_ENDPOINT");
  }

  @Test
  void aBadPingIntervalStopsStartUpWithItsClearErrorAndTheFixedTimesAreNamed() {
    assertThatThrownBy(() -> GatewaySettings.from(ConclaveConfig.from(Map.of("CONCLAVE_AGENT_PING_SECONDS", "-1"))))
      .isInstanceOf(ConfigException.class)
      .hasMessage("CONCLAVE_AGENT_PING_SECONDS: must be 0 (off) or a positive whole number, got '-1'");
    GatewaySettings settings = GatewaySettings.from(ConclaveConfig.from(Map.of()));
    assertThat(settings.idleRedispatch()).isEqualTo(GatewaySettings.IDLE_REDISPATCH).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.commandTimeout()).isEqualTo(GatewaySettings.COMMAND_TIMEOUT).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void askUsersBoundIsTheGatewaysSettingNow() {
    assertThat(GatewaySettings.from(ConclaveConfig.from(Map.of())).askUserTimeout()).isEqualTo(Duration.ofSeconds(300));
    assertThatThrownBy(() -> GatewaySettings.from(ConclaveConfig.from(Map.of("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", "soon"))))
      .isInstanceOf(ConfigException.class).hasMessage("CONCLAVE_ASK_USER_TIMEOUT_SECONDS: 'soon' is not a whole number");
  }
}
