package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The transport parts of {@code k8s/}: the startup window and the cluster domain, and, in the
 * production overlay, TLS on every port from cert-manager's Secrets and a cluster CA used for nothing
 * but the event bus. Who reaches which port and the Ingresses: {@link K8sNetworkManifestsTest}.
 * Rendered by {@link Kustomize} as {@link K8sManifestsTest} renders them.
 */
class K8sTlsManifestsTest {

  /** A cold start of three pods on 2 cores took up to 124 s: the startup window leaves room above it. */
  private static final int STARTUP_WINDOW_SECONDS = 240;

  static java.util.stream.Stream<String> overlays() throws java.io.IOException {
    return K8sManifestsTest.overlays();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void theStartupWindowCoversAColdStartAndTheClusterDomainIsASetting(String overlay) {
    List<HasMetadata> objects = K8sManifestsTest.render(overlay);
    ConfigMap settings = K8sManifestsTest.of(objects, ConfigMap.class).stream()
        .filter(c -> K8sManifestsTest.name(c).equals("conclave-k8s")).findFirst().orElseThrow();
    assertThat(settings.getData()).containsKey("cluster-domain");
    for (Deployment d : K8sManifestsTest.conclaveDeployments(objects)) {
      Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
      Probe startup = c.getStartupProbe();
      assertThat(startup.getPeriodSeconds() * startup.getFailureThreshold()).as(K8sManifestsTest.name(d) + ": startup window, s")
          .isGreaterThanOrEqualTo(STARTUP_WINDOW_SECONDS);
      EnvVar domain = K8sManifestsTest.env(c).stream().filter(e -> e.getName().equals("CLUSTER_DOMAIN")).findFirst().orElseThrow();
      assertThat(domain.getValueFrom().getConfigMapKeyRef().getName()).isEqualTo("conclave-k8s");
      assertThat(domain.getValueFrom().getConfigMapKeyRef().getKey()).isEqualTo("cluster-domain");
      for (EnvVar e : K8sManifestsTest.env(c)) {
        assertThat(Objects.toString(e.getValue(), "")).as(e.getName() + ": the cluster domain is not written out")
            .doesNotContain("cluster.local");
      }
      assertThat(K8sManifestsTest.envValue(c, "CONCLAVE_CLUSTER_K8S_DNS")).endsWith(".svc.$(CLUSTER_DOMAIN)");
    }
  }

  @Test
  void productionSpeaksTlsOnEveryPortWithCertificatesFromCertManager() {
    List<HasMetadata> objects = K8sManifestsTest.render("production");
    Map<String, GenericKubernetesResource> certificates = bySecret(generic(objects, "Certificate"));
    List<String> problems = new ArrayList<>();
    for (Deployment d : K8sManifestsTest.conclaveDeployments(objects)) {
      String id = "Deployment/" + K8sManifestsTest.name(d);
      PodSpec pod = d.getSpec().getTemplate().getSpec();
      Container c = pod.getContainers().get(0);
      for (String file : List.of("CONCLAVE_TLS_CERT_FILE", "CONCLAVE_TLS_KEY_FILE", "CONCLAVE_CLUSTER_TLS_CERT_FILE",
          "CONCLAVE_CLUSTER_TLS_KEY_FILE", "CONCLAVE_CLUSTER_TLS_CA_FILE")) {
        String path = K8sManifestsTest.envValue(c, file);
        Optional<String> secret = path == null ? Optional.empty() : secretMountedAt(pod, c, path);
        if (secret.isEmpty() || !certificates.containsKey(secret.get())) {
          problems.add(id + ": " + file + "=" + path + " is not in a Secret cert-manager writes");
        }
      }
      String publicSecret = secretMountedAt(pod, c, K8sManifestsTest.envValue(c, "CONCLAVE_TLS_CERT_FILE")).orElse("");
      String clusterSecret = secretMountedAt(pod, c, K8sManifestsTest.envValue(c, "CONCLAVE_CLUSTER_TLS_CERT_FILE")).orElse("");
      if (publicSecret.equals(clusterSecret)) {
        problems.add(id + ": the public ports and the event bus share a certificate");
      }
      for (Probe probe : List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe())) {
        if (!"HTTPS".equals(probe.getHttpGet().getScheme())) {
          problems.add(id + ": a probe on " + probe.getHttpGet().getPath() + " speaks " + probe.getHttpGet().getScheme()
              + " to a TLS-only port");
        }
      }
      String mcp = K8sManifestsTest.envValue(c, "CONCLAVE_MCP_ENDPOINT");
      if (mcp != null && !mcp.startsWith("https://")) {
        problems.add(id + ": agents are handed the MCP URL " + mcp);
      }
    }
    assertThat(problems).isEmpty();

    // the cluster CA issues the member certificate and nothing else
    GenericKubernetesResource member = certificates.get("conclave-cluster-tls");
    assertThat(list(spec(member), "usages")).containsExactlyInAnyOrder("server auth", "client auth");
    String clusterIssuer = (String) map(spec(member), "issuerRef").get("name");
    assertThat(generic(objects, "Certificate").stream().filter(c -> clusterIssuer.equals(map(spec(c), "issuerRef").get("name"))))
        .as("certificates the cluster CA issues").containsExactly(member);
    GenericKubernetesResource issuer = generic(objects, "Issuer").stream().filter(i -> K8sManifestsTest.name(i).equals(clusterIssuer))
        .findFirst().orElseThrow();
    String caSecret = (String) map(spec(issuer), "ca").get("secretName");
    assertThat(spec(certificates.get(caSecret)).get("isCA")).as("the cluster CA is a CA certificate of its own").isEqualTo(true);
    assertThat(generic(objects, "Issuer").stream().filter(i -> map(spec(i), "ca") != null && caSecret.equals(map(spec(i), "ca").get("secretName"))))
        .as("issuers signing with the cluster CA").hasSize(1);
  }

  static Optional<String> secretMountedAt(PodSpec pod, Container c, String path) {
    for (VolumeMount m : Optional.ofNullable(c.getVolumeMounts()).orElse(List.of())) {
      if (path != null && path.startsWith(m.getMountPath() + "/")) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(m.getName())).map(Volume::getSecret)
            .filter(Objects::nonNull).map(s -> s.getSecretName()).findFirst();
      }
    }
    return Optional.empty();
  }

  static Map<String, GenericKubernetesResource> bySecret(List<GenericKubernetesResource> certificates) {
    Map<String, GenericKubernetesResource> out = new LinkedHashMap<>();
    certificates.forEach(c -> out.put((String) spec(c).get("secretName"), c));
    return out;
  }

  static List<GenericKubernetesResource> generic(List<HasMetadata> objects, String kind) {
    return K8sManifestsTest.of(objects, GenericKubernetesResource.class).stream().filter(g -> kind.equals(g.getKind())).toList();
  }

  static Map<String, Object> spec(GenericKubernetesResource r) {
    return cast(r.getAdditionalProperties().get("spec"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object o) {
    return (Map<String, Object>) o;
  }

  private static Map<String, Object> map(Map<String, Object> m, String key) {
    return m == null ? null : cast(m.get(key));
  }

  static List<Object> list(Map<String, Object> m, String key) {
    Object v = m == null ? null : m.get(key);
    return v == null ? List.of() : new ArrayList<>((List<?>) v);
  }
}
