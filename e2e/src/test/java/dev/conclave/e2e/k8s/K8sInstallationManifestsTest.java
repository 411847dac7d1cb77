package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production overlay's installation in one place: the namespace, the cluster's DNS domain and the
 * public host names are set once (the "Your installation" patch of the ConfigMap conclave-k8s) and
 * kustomize's replacements carry them into the certificates' names, the Ingress hosts and the MCP URL.
 * Checked on the overlay as shipped and on a copy with other values, where no shipped name may remain.
 */
class K8sInstallationManifestsTest {

  private static final Path K8S = Path.of("..", "k8s").toAbsolutePath().normalize();

  @Test
  void theShippedOverlayNamesFollowItsInstallationSettings() {
    check(render(K8S), "conclave", "cluster.local", "conclave.example.com", "grpc.conclave.example.com");
  }

  @Test
  void anotherNamespaceDomainAndHostsChangeEveryNameAndLeaveNoShippedOne(@TempDir Path dir) throws IOException {
    copy(K8S, dir);
    Path kustomization = dir.resolve("overlays/production/kustomization.yaml");
    String text = Files.readString(kustomization, StandardCharsets.UTF_8);
    for (String[] change : new String[][] {
        {"/data/cluster-domain", "cluster.local", "corp.internal"},
        {"/data/namespace", "conclave", "team-a"},
        {"/data/public-host", "conclave.example.com", "conclave.acme.test"},
        {"/data/grpc-host", "grpc.conclave.example.com", "agents.acme.test"}}) {
      String from = "path: " + change[0] + "\n        value: " + change[1] + "\n";
      assertThat(text).as("the installation patch sets " + change[0]).contains(from);
      text = text.replace(from, "path: " + change[0] + "\n        value: " + change[2] + "\n");
    }
    Files.writeString(kustomization, text, StandardCharsets.UTF_8);
    List<Map<String, Object>> docs = Kustomize.build(dir.resolve("overlays/production"));
    check(docs, "team-a", "corp.internal", "conclave.acme.test", "agents.acme.test");
    for (Map<String, Object> doc : docs) {
      if (List.of("Certificate", "Ingress", "Deployment", "ConfigMap").contains((String) doc.get("kind"))) {
        String rendered = doc.toString().replace("registry.example.com", "");
        assertThat(rendered).as(doc.get("kind") + "/" + Kustomize.name(doc)).doesNotContain("cluster.local", ".conclave.svc", "example.com");
      }
      if (List.of("Certificate", "Ingress").contains((String) doc.get("kind"))) {
        assertThat(doc.toString()).as(doc.get("kind") + "/" + Kustomize.name(doc) + ": a placeholder left")
            .doesNotContain("NAMESPACE", "CLUSTER_DOMAIN");
      }
    }
  }

  private static void check(List<Map<String, Object>> docs, String namespace, String domain, String publicHost, String grpcHost) {
    List<HasMetadata> objects = docs.stream().map(K8sManifestsTest::parse).toList();
    ConfigMap installation = K8sManifestsTest.of(objects, ConfigMap.class).stream()
        .filter(c -> K8sManifestsTest.name(c).equals("conclave-k8s")).findFirst().orElseThrow();
    assertThat(installation.getData()).containsAllEntriesOf(Map.of("namespace", namespace, "cluster-domain", domain,
        "public-host", publicHost, "grpc-host", grpcHost));
    Map<String, GenericKubernetesResource> certificates = K8sTlsManifestsTest.bySecret(K8sTlsManifestsTest.generic(objects, "Certificate"));
    List<String> internal = new ArrayList<>();
    for (String service : List.of("conclave", "conclave-pack-host", "conclave-coordinator")) {
      internal.addAll(List.of(service, service + "." + namespace + ".svc", service + "." + namespace + ".svc." + domain));
    }
    assertThat(names(certificates.get("conclave-tls"))).as("the pods' certificate: each Service's names").containsExactlyElementsOf(internal);
    assertThat(names(certificates.get("conclave-cluster-tls"))).as("the event bus's certificate")
        .containsExactly("conclave-cluster." + namespace + ".svc", "conclave-cluster." + namespace + ".svc." + domain);
    assertThat(names(certificates.get("conclave-public-tls"))).as("the public certificate").containsExactly(grpcHost, publicHost);
    for (Ingress ingress : K8sManifestsTest.of(objects, Ingress.class)) {
      String host = ingress.getSpec().getRules().get(0).getHost();
      assertThat(host).as(K8sManifestsTest.name(ingress)).isIn(grpcHost, publicHost);
      assertThat(ingress.getSpec().getTls().get(0).getHosts()).containsExactly(host);
    }
    Deployment gateway = K8sManifestsTest.of(objects, Deployment.class).stream()
        .filter(d -> K8sManifestsTest.name(d).equals("conclave-gateway")).findFirst().orElseThrow();
    assertThat(K8sManifestsTest.envValue(gateway.getSpec().getTemplate().getSpec().getContainers().get(0), "CONCLAVE_MCP_ENDPOINT"))
        .isEqualTo("https://" + publicHost + "/mcp");
  }

  private static List<Object> names(GenericKubernetesResource certificate) {
    return K8sTlsManifestsTest.list(K8sTlsManifestsTest.spec(certificate), "dnsNames");
  }

  private static List<Map<String, Object>> render(Path k8s) {
    return Kustomize.build(k8s.resolve("overlays/production"));
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      files.forEach(f -> {
        try {
          Path target = to.resolve(from.relativize(f).toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(target);
          } else {
            Files.copy(f, target);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
