package dev.conclave.platform.config;

import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Setting;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConclaveConfigTest {

  private static ConclaveConfig parse(String... pairs) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return ConclaveConfig.from(env);
  }

  private static void rejects(String variable, String messagePart, String... pairs) {
    assertThatThrownBy(() -> parse(pairs))
      .isInstanceOf(ConfigException.class)
      .hasMessageStartingWith(variable + ": ")
      .hasMessageContaining(messagePart)
      .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void defaultsFollowTheContract() {
    ConclaveConfig c = parse();
    assertThat(c.roles()).isEqualTo(EnumSet.allOf(RoleName.class));
    assertThat(c.grpcPort()).isEqualTo(50051);
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.dataDir()).isEqualTo(Path.of("./data").toAbsolutePath().normalize());
    assertThat(c.pgUrl()).isEmpty();
    assertThat(c.clustered()).isFalse();
    assertThat(c.clusterPort()).isEqualTo(5701);
    assertThat(c.authSecret()).isEmpty();
    assertThat(c.nodeId()).matches("[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{6}");
    assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.adminTokenFile()).isEqualTo(c.dataDir().resolve("admin.token"));
    assertThat(c.embeddedPgDir()).isEqualTo(c.dataDir().resolve("pg"));
  }

  @Test
  void anUnknownLogFormatStopsTheStart() {
    rejects("CONCLAVE_LOG_FORMAT", "must be one of text, json", "CONCLAVE_LOG_FORMAT", "xml");
    parse("CONCLAVE_LOG_FORMAT", "json");
  }

  @Test
  void printingTheConfigurationRevealsNoSecret() {
    String printed = parse("CONCLAVE_AUTH_SECRET", "s3cret-signing-key-0123456789abcdef0123",
      "CONCLAVE_SECRETS_KEY", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
      "CONCLAVE_PG_URL", "postgresql://conclave:pg-pass-123@db.example:5432/conclave").toString();
    assertThat(printed).doesNotContain("s3cret-signing-key").doesNotContain("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
      .doesNotContain("pg-pass-123").contains("authSecret=(set)").contains("secretsKey=(set)");
  }

  @Test
  void twoDefaultNodeIdsDiffer() {
    assertThat(parse().nodeId()).isNotEqualTo(parse().nodeId());
  }

  @Test
  void readsEveryContractVariable() {
    ConclaveConfig c = parse(
      "CONCLAVE_ROLES", " Gateway , pack-host ",
      "CONCLAVE_NODE_ID", "node-a",
      "CONCLAVE_GRPC_PORT", "6000",
      "CONCLAVE_HTTP_PORT", "6001",
      "CONCLAVE_DATA_DIR", "/tmp/conclave-x",
      "CONCLAVE_PG_URL", "postgresql://app:s%40cret+1@db.example:6543/conclave?sslmode=require",
      "CONCLAVE_CLUSTER_MEMBERS", "10.0.0.1:5701, 10.0.0.2",
      "CONCLAVE_CLUSTER_HOST", "10.0.0.3",
      "CONCLAVE_CLUSTER_PORT", "5801",
      "CONCLAVE_AUTH_SECRET", "0123456789abcdef0123456789abcdef");
    assertThat(c.roles()).containsExactlyInAnyOrder(RoleName.GATEWAY, RoleName.PACK_HOST);
    assertThat(c.nodeId()).isEqualTo("node-a");
    assertThat(c.grpcPort()).isEqualTo(6000);
    assertThat(c.httpPort()).isEqualTo(6001);
    assertThat(c.dataDir()).isEqualTo(Path.of("/tmp/conclave-x"));
    PgUrl url = c.pgUrl().orElseThrow();
    assertThat(url.host()).isEqualTo("db.example");
    assertThat(url.port()).isEqualTo(6543);
    assertThat(url.database()).isEqualTo("conclave");
    assertThat(url.user()).isEqualTo("app");
    assertThat(url.password()).contains("s@cret+1");
    assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/conclave?sslmode=require");
    assertThat(url.redacted()).doesNotContain("s@cret");
    assertThat(c.clusterMembers()).containsExactly(new HostAndPort("10.0.0.1", 5701), new HostAndPort("10.0.0.2", 5801));
    assertThat(c.clusterHost()).contains("10.0.0.3");
    assertThat(c.clustered()).isTrue();
    assertThat(c.authSecret()).contains("0123456789abcdef0123456789abcdef");
  }

  @Test
  void blankValuesMeanUnset() {
    ConclaveConfig c = parse("CONCLAVE_PG_URL", "  ", "CONCLAVE_GRPC_PORT", "");
    assertThat(c.pgUrl()).isEmpty();
    assertThat(c.grpcPort()).isEqualTo(50051);
  }

  @Test
  void rejectsUnknownRole() {
    rejects("CONCLAVE_ROLES", "unknown role 'gatewy' (known: gateway, coordinator, pack-host)", "CONCLAVE_ROLES", "gatewy");
  }

  @Test
  void rejectsEmptyRoleList() {
    rejects("CONCLAVE_ROLES", "names no role", "CONCLAVE_ROLES", " , ");
  }

  @Test
  void rejectsBadPorts() {
    rejects("CONCLAVE_GRPC_PORT", "'http' is not a whole number", "CONCLAVE_GRPC_PORT", "http");
    rejects("CONCLAVE_HTTP_PORT", "'70000' is not a port", "CONCLAVE_HTTP_PORT", "70000");
    rejects("CONCLAVE_CLUSTER_PORT", "'-1' is not a port", "CONCLAVE_CLUSTER_PORT", "-1");
    rejects("CONCLAVE_HTTP_PORT", "must differ from CONCLAVE_GRPC_PORT", "CONCLAVE_GRPC_PORT", "7000", "CONCLAVE_HTTP_PORT", "7000");
  }

  @Test
  void rejectsBadNodeId() {
    rejects("CONCLAVE_NODE_ID", "is not valid", "CONCLAVE_NODE_ID", "node a");
  }

  @Test
  void rejectsBadPgUrl() {
    rejects("CONCLAVE_PG_URL", "must start with postgresql://", "CONCLAVE_PG_URL", "mysql://u@h/db");
    rejects("CONCLAVE_PG_URL", "names no database", "CONCLAVE_PG_URL", "postgresql://u@h:5432");
    rejects("CONCLAVE_PG_URL", "not a URL", "CONCLAVE_PG_URL", "postgresql://u@h:5432/ db");
  }

  @Test
  void rejectsBadClusterSettings() {
    String secret = "0123456789abcdef0123456789abcdef";
    rejects("CONCLAVE_CLUSTER_K8S_DNS", "not both", "CONCLAVE_CLUSTER_MEMBERS", "a:5701",
      "CONCLAVE_CLUSTER_K8S_DNS", "conclave-hz.default.svc", "CONCLAVE_AUTH_SECRET", secret);
    rejects("CONCLAVE_CLUSTER_MEMBERS", "'x' is not a whole number", "CONCLAVE_CLUSTER_MEMBERS", "a:x", "CONCLAVE_AUTH_SECRET", secret);
    rejects("CONCLAVE_CLUSTER_MEMBERS", "has no host", "CONCLAVE_CLUSTER_MEMBERS", ":5701", "CONCLAVE_AUTH_SECRET", secret);
  }

  @Test
  void rejectsShortSecretAndClusterWithoutSecret() {
    rejects("CONCLAVE_AUTH_SECRET", "at least 32 characters", "CONCLAVE_AUTH_SECRET", "short");
    rejects("CONCLAVE_AUTH_SECRET", "must be set when the node runs clustered", "CONCLAVE_CLUSTER_MEMBERS", "127.0.0.1:5701");
  }

  @Test
  void everyKeyHasADistinctConclaveName() {
    java.util.List<Setting<?>> settings = new NodeSettings.Catalogue().settings();
    assertThat(settings.stream().map(Setting::name).distinct().count()).isEqualTo(settings.size());
    assertThat(settings).allSatisfy(k -> assertThat(k.name()).startsWith("CONCLAVE_"));
  }

  @Test
  void theEdgeInstancesDefaultIsTheCoresAtMostFour() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(ConclaveConfig.from(Map.of()).edgeInstances()).isEqualTo(Math.max(1, Math.min(4, cores)));
    assertThat(NodeSettings.EDGE_INSTANCES.documentedDefault()).isEqualTo("number of cores, at most 4");
  }
}
