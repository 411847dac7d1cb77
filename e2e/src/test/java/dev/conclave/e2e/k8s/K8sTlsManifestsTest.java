package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The transport parts of {@code k8s/}: who may reach which port (the NetworkPolicy), the startup
 * window and the cluster domain, and, in the production overlay, TLS on every port from
 * cert-manager's Secrets, a cluster CA used for nothing but the event bus, and the Ingresses for gRPC
 * and the console. Rendered by {@link Kustomize} as {@link K8sManifestsTest} renders them.
 */
class K8sTlsManifestsTest {

  private static final Map<String, String> CONCLAVE_PODS = Map.of("app.kubernetes.io/name", "conclave");
  private static final Set<Integer> CLUSTER_PORTS = Set.of(5701, 5711);
  private static final Set<Integer> PUBLIC_PORTS = Set.of(50051, 8080);
  /** A cold start of three pods on 2 cores took up to 124 s: the startup window leaves room above it. */
  private static final int STARTUP_WINDOW_SECONDS = 240;

  static java.util.stream.Stream<String> overlays() throws java.io.IOException {
    return K8sManifestsTest.overlays();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void onlyConclavePodsReachTheClusterPortsAndOnlyTheIngressAndConclaveThePublicOnes(String overlay) {
    List<HasMetadata> objects = K8sManifestsTest.render(overlay);
    List<GenericKubernetesResource> policies = generic(objects, "NetworkPolicy").stream()
        .filter(p -> CONCLAVE_PODS.equals(map(map(spec(p), "podSelector"), "matchLabels")))
        .toList();
    assertThat(policies).as(overlay + ": one NetworkPolicy selects the Conclave pods").hasSize(1);
    Map<String, Object> spec = spec(policies.get(0));
    assertThat(list(spec, "policyTypes")).as("it restricts ingress").contains("Ingress");

    // port -> who may connect to it ("pods:<labels>", "namespace:<labels>")
    Map<Integer, Set<String>> allowed = new LinkedHashMap<>();
    for (Object r : list(spec, "ingress")) {
      Map<String, Object> rule = cast(r);
      assertThat(list(rule, "from")).as("a rule without 'from' would let anyone in").isNotEmpty();
      assertThat(list(rule, "ports")).as("a rule without 'ports' would open every port").isNotEmpty();
      Set<String> peers = new LinkedHashSet<>();
      for (Object f : list(rule, "from")) {
        Map<String, Object> from = cast(f);
        assertThat(from).as("peers are pods or namespaces, never address blocks").doesNotContainKey("ipBlock");
        assertThat(from.keySet()).as("a peer names pods or a namespace, not both").hasSize(1);
        from.forEach((kind, selector) -> peers.add((kind.equals("podSelector") ? "pods:" : "namespace:")
            + map(cast(selector), "matchLabels")));
      }
      for (Object p : list(rule, "ports")) {
        Map<String, Object> port = cast(p);
        assertThat(port.get("protocol")).isEqualTo("TCP");
        allowed.computeIfAbsent(((Number) port.get("port")).intValue(), k -> new LinkedHashSet<>()).addAll(peers);
      }
    }
    String conclave = "pods:" + CONCLAVE_PODS;
    for (int port : CLUSTER_PORTS) {
      assertThat(allowed.get(port)).as(overlay + ": who reaches cluster port " + port).containsExactly(conclave);
    }
    for (int port : PUBLIC_PORTS) {
      assertThat(allowed.get(port)).as(overlay + ": who reaches public port " + port)
          .containsExactlyInAnyOrder(conclave, "namespace:{kubernetes.io/metadata.name=ingress-nginx}");
    }
    assertThat(allowed.keySet()).as("no other port is opened").containsExactlyInAnyOrder(5701, 5711, 50051, 8080);
    // and those are the ports the pods listen on
    for (Deployment d : K8sManifestsTest.conclaveDeployments(objects)) {
      Set<Integer> listening = new LinkedHashSet<>();
      d.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().forEach(p -> listening.add(p.getContainerPort()));
      assertThat(listening).as(K8sManifestsTest.name(d) + "'s ports").isEqualTo(allowed.keySet());
    }
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

  /**
   * A pod's data dir is an emptyDir: a node writing the admin token there minted a new one-year token at
   * every pod start. The pods write none; the token is issued once and kept in a Secret by the operator.
   */
  @ParameterizedTest
  @MethodSource("overlays")
  void podsMintNoAdminTokenAtStart(String overlay) {
    for (Deployment d : K8sManifestsTest.conclaveDeployments(K8sManifestsTest.render(overlay))) {
      assertThat(K8sManifestsTest.envValue(d.getSpec().getTemplate().getSpec().getContainers().get(0), "CONCLAVE_WRITE_ADMIN_TOKEN"))
          .as(overlay + ": " + K8sManifestsTest.name(d)).isEqualTo("off");
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

  @Test
  void productionHasIngressesForGrpcAndTheConsoleOverTls() {
    List<HasMetadata> objects = K8sManifestsTest.render("production");
    Map<String, GenericKubernetesResource> certificates = bySecret(generic(objects, "Certificate"));
    Map<String, String> backendProtocols = new LinkedHashMap<>();
    for (GenericKubernetesResource ingress : generic(objects, "Ingress")) {
      String id = "Ingress/" + K8sManifestsTest.name(ingress);
      Map<String, String> annotations = Optional.ofNullable(ingress.getMetadata().getAnnotations()).orElse(Map.of());
      for (Object t : list(spec(ingress), "tls")) {
        assertThat(certificates).as(id + ": its TLS Secret comes from a Certificate").containsKey((String) cast(t).get("secretName"));
      }
      assertThat(list(spec(ingress), "tls")).as(id + " terminates TLS").isNotEmpty();
      for (Object r : list(spec(ingress), "rules")) {
        for (Object p : list(map(cast(r), "http"), "paths")) {
          Map<String, Object> service = map(map(cast(p), "backend"), "service");
          String port = (String) map(service, "port").get("name");
          Service target = K8sManifestsTest.of(objects, Service.class).stream()
              .filter(s -> K8sManifestsTest.name(s).equals(service.get("name"))).findFirst().orElseThrow();
          assertThat(target.getSpec().getPorts()).as(id + ": Service " + service.get("name") + " has port " + port)
              .anyMatch(sp -> port.equals(sp.getName()));
          backendProtocols.put(service.get("name") + ":" + port + cast(p).get("path"),
              annotations.get("nginx.ingress.kubernetes.io/backend-protocol"));
        }
      }
    }
    assertThat(backendProtocols).as("backend -> the protocol the ingress speaks to it (re-encrypted: the pods speak TLS only)")
        .containsEntry("conclave:grpc/", "GRPCS")
        .containsEntry("conclave:http/", "HTTPS")
        .containsEntry("conclave-pack-host:http/mcp", "HTTPS");
  }

  private static Optional<String> secretMountedAt(PodSpec pod, Container c, String path) {
    for (VolumeMount m : Optional.ofNullable(c.getVolumeMounts()).orElse(List.of())) {
      if (path != null && path.startsWith(m.getMountPath() + "/")) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(m.getName())).map(Volume::getSecret)
            .filter(Objects::nonNull).map(s -> s.getSecretName()).findFirst();
      }
    }
    return Optional.empty();
  }

  private static Map<String, GenericKubernetesResource> bySecret(List<GenericKubernetesResource> certificates) {
    Map<String, GenericKubernetesResource> out = new LinkedHashMap<>();
    certificates.forEach(c -> out.put((String) spec(c).get("secretName"), c));
    return out;
  }

  private static List<GenericKubernetesResource> generic(List<HasMetadata> objects, String kind) {
    return K8sManifestsTest.of(objects, GenericKubernetesResource.class).stream().filter(g -> kind.equals(g.getKind())).toList();
  }

  private static Map<String, Object> spec(GenericKubernetesResource r) {
    return cast(r.getAdditionalProperties().get("spec"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object o) {
    return (Map<String, Object>) o;
  }

  private static Map<String, Object> map(Map<String, Object> m, String key) {
    return m == null ? null : cast(m.get(key));
  }

  private static List<Object> list(Map<String, Object> m, String key) {
    Object v = m == null ? null : m.get(key);
    return v == null ? List.of() : new ArrayList<>((List<?>) v);
  }
}
