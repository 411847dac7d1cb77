package dev.conclave.platform.config;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import dev.conclave.platform.cluster.VertxBootstrapAccess;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The Hazelcast config a clustered node starts with, for each join method. */
class HazelcastConfigTest {

  private static final String SECRET = "0123456789abcdef0123456789abcdef";

  @Test
  void tcpIpJoinListsTheMembersAndNothingElse() {
    ConclaveConfig c = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_MEMBERS", "10.0.0.1:5701,10.0.0.2:5701",
      "CONCLAVE_CLUSTER_NAME", "prod", "CONCLAVE_CLUSTER_PORT", "5801", "CONCLAVE_AUTH_SECRET", SECRET));
    Config hz = VertxBootstrapAccess.hazelcast(c, "10.0.0.3");
    JoinConfig join = hz.getNetworkConfig().getJoin();
    assertThat(hz.getClusterName()).isEqualTo("prod");
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
    assertThat(join.getKubernetesConfig().isEnabled()).isFalse();
    assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
    assertThat(join.getTcpIpConfig().getMembers()).containsExactly("10.0.0.1:5701", "10.0.0.2:5701");
    assertThat(hz.getNetworkConfig().getPort()).isEqualTo(5801);
    assertThat(hz.getNetworkConfig().isPortAutoIncrement()).isFalse();
    assertThat(hz.getNetworkConfig().getPublicAddress()).isEqualTo("10.0.0.3:5801");
    assertThat(hz.getProperty("hazelcast.shutdownhook.policy")).isEqualTo("GRACEFUL");
    assertThat(hz.getProperty("hazelcast.discovery.auto.detection.enabled")).isEqualTo("false");
    // the maps Vert.x needs are still configured
    assertThat(hz.getMultiMapConfigs()).containsKey("__vertx.subs");
  }

  @Test
  void kubernetesDnsJoinUsesTheHeadlessService() {
    ConclaveConfig c = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_K8S_DNS", "conclave-cluster.ns.svc.cluster.local",
      "CONCLAVE_AUTH_SECRET", SECRET));
    JoinConfig join = VertxBootstrapAccess.hazelcast(c, "10.1.2.3").getNetworkConfig().getJoin();
    assertThat(join.getKubernetesConfig().isEnabled()).isTrue();
    assertThat(join.getKubernetesConfig().getProperty("service-dns")).isEqualTo("conclave-cluster.ns.svc.cluster.local");
    assertThat(join.getTcpIpConfig().isEnabled()).isFalse();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
  }
}
