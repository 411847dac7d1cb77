package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.IngressTLS;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who reaches which port, read in the typed networking model: the NetworkPolicy lets only Conclave's
 * pods reach the cluster ports (Hazelcast, the event bus) and only the ingress controller's namespace
 * (and Conclave's pods) the public ones; the production Ingresses route gRPC with the annotations
 * ingress-nginx needs to speak gRPC over TLS to the pods, and the console, the API, the event-bus
 * bridge and MCP over HTTPS, each on a certificate cert-manager issues for its host names.
 */
class K8sNetworkManifestsTest {

  private static final Map<String, String> CONCLAVE_PODS = Map.of("app.kubernetes.io/name", "conclave");
  private static final Set<Integer> CLUSTER_PORTS = Set.of(5701, 5711);
  private static final Set<Integer> PUBLIC_PORTS = Set.of(50051, 8080);
  /** The controller the Ingresses are written for (their class) and the namespace it is installed in. */
  private static final String INGRESS_CLASS = "nginx";
  private static final Map<String, String> INGRESS_NAMESPACE = Map.of("kubernetes.io/metadata.name", "ingress-nginx");
  private static final String NGINX = "nginx.ingress.kubernetes.io/";

  static java.util.stream.Stream<String> overlays() throws java.io.IOException {
    return K8sManifestsTest.overlays();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void onlyConclavePodsReachTheClusterPortsAndOnlyTheIngressAndConclaveThePublicOnes(String overlay) {
    List<HasMetadata> objects = K8sManifestsTest.render(overlay);
    List<NetworkPolicy> policies = K8sManifestsTest.of(objects, NetworkPolicy.class).stream()
        .filter(p -> CONCLAVE_PODS.equals(p.getSpec().getPodSelector().getMatchLabels())).toList();
    assertThat(policies).as(overlay + ": one NetworkPolicy selects the Conclave pods").hasSize(1);
    NetworkPolicy policy = policies.get(0);
    assertThat(policy.getSpec().getPodSelector().getMatchExpressions()).as("selected by labels alone").isNullOrEmpty();
    assertThat(policy.getSpec().getPolicyTypes()).as("it restricts ingress").contains("Ingress");

    // port -> who may connect to it ("pods:<labels>": this namespace's pods; "namespace:<labels>": any pod there)
    Map<Integer, Set<String>> allowed = new LinkedHashMap<>();
    for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
      assertThat(rule.getFrom()).as("a rule without 'from' lets anyone in").isNotEmpty();
      assertThat(rule.getPorts()).as("a rule without 'ports' opens every port").isNotEmpty();
      Set<String> peers = new LinkedHashSet<>();
      for (NetworkPolicyPeer from : rule.getFrom()) {
        assertThat(from.getIpBlock()).as("peers are pods or namespaces, never address blocks").isNull();
        assertThat(from.getPodSelector() == null ^ from.getNamespaceSelector() == null)
            .as("a peer names this namespace's pods or a whole namespace: %s", from).isTrue();
        peers.add(from.getPodSelector() != null ? "pods:" + labels(from.getPodSelector()) : "namespace:" + labels(from.getNamespaceSelector()));
      }
      for (NetworkPolicyPort port : rule.getPorts()) {
        assertThat(port.getProtocol()).isEqualTo("TCP");
        assertThat(port.getEndPort()).as("one port per entry, no ranges").isNull();
        assertThat(port.getPort().getIntVal()).as("ports by number: %s", port.getPort()).isNotNull();
        allowed.computeIfAbsent(port.getPort().getIntVal(), k -> new LinkedHashSet<>()).addAll(peers);
      }
    }
    String conclave = "pods:" + CONCLAVE_PODS;
    for (int port : CLUSTER_PORTS) {
      assertThat(allowed.get(port)).as(overlay + ": who reaches cluster port " + port).containsExactly(conclave);
    }
    for (int port : PUBLIC_PORTS) {
      assertThat(allowed.get(port)).as(overlay + ": who reaches public port " + port)
          .containsExactlyInAnyOrder(conclave, "namespace:" + INGRESS_NAMESPACE);
    }
    assertThat(allowed.keySet()).as("no other port is opened").containsExactlyInAnyOrder(5701, 5711, 50051, 8080);

    // the policy's label is on every Conclave pod, listening on exactly those ports, and on no other pod
    for (Deployment d : K8sManifestsTest.of(objects, Deployment.class)) {
      Set<Integer> listening = new LinkedHashSet<>();
      d.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().forEach(p -> listening.add(p.getContainerPort()));
      assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).as(K8sManifestsTest.name(d)).containsAllEntriesOf(CONCLAVE_PODS);
      assertThat(listening).as(K8sManifestsTest.name(d) + "'s ports").isEqualTo(allowed.keySet());
    }
    for (StatefulSet s : K8sManifestsTest.of(objects, StatefulSet.class)) {
      assertThat(s.getSpec().getTemplate().getMetadata().getLabels().get("app.kubernetes.io/name"))
          .as(K8sManifestsTest.name(s) + " is not Conclave: it must not pass as a Conclave pod").isNotEqualTo("conclave");
    }
  }

  @Test
  void theIngressControllersNamespaceIsTheOneTheNetworkPolicyLetsIn() {
    List<HasMetadata> objects = K8sManifestsTest.render("production");
    List<Ingress> ingresses = K8sManifestsTest.of(objects, Ingress.class);
    assertThat(ingresses).isNotEmpty();
    for (Ingress ingress : ingresses) {
      assertThat(ingress.getSpec().getIngressClassName()).as(K8sManifestsTest.name(ingress)).isEqualTo(INGRESS_CLASS);
      assertThat(ingress.getMetadata().getAnnotations().keySet()).as("annotations are those of the class's controller")
          .allMatch(a -> a.startsWith(NGINX));
    }
    NetworkPolicy policy = K8sManifestsTest.of(objects, NetworkPolicy.class).get(0);
    assertThat(policy.getSpec().getIngress().stream().flatMap(r -> r.getFrom().stream()).map(NetworkPolicyPeer::getNamespaceSelector)
        .filter(s -> s != null).map(K8sNetworkManifestsTest::labels)).containsExactly(INGRESS_NAMESPACE);
  }

  @Test
  void productionRoutesGrpcAndTheConsoleOverTlsOnCertificatesForTheirHosts() {
    List<HasMetadata> objects = K8sManifestsTest.render("production");
    Map<String, GenericKubernetesResource> certificates = K8sTlsManifestsTest.bySecret(K8sTlsManifestsTest.generic(objects, "Certificate"));
    // backend ("service:port path") -> the protocol the controller speaks to it
    Map<String, String> backendProtocols = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (Ingress ingress : K8sManifestsTest.of(objects, Ingress.class)) {
      String id = "Ingress/" + K8sManifestsTest.name(ingress);
      Map<String, String> annotations = Optional.ofNullable(ingress.getMetadata().getAnnotations()).orElse(Map.of());
      if (!"true".equals(annotations.get(NGINX + "ssl-redirect"))) {
        problems.add(id + ": plain HTTP is not redirected to HTTPS");
      }
      Set<String> tlsHosts = new LinkedHashSet<>();
      for (IngressTLS tls : ingress.getSpec().getTls()) {
        GenericKubernetesResource certificate = certificates.get(tls.getSecretName());
        if (certificate == null) {
          problems.add(id + ": TLS Secret " + tls.getSecretName() + " is no Certificate's secretName");
          continue;
        }
        List<Object> names = K8sTlsManifestsTest.list(K8sTlsManifestsTest.spec(certificate), "dnsNames");
        tls.getHosts().stream().filter(h -> !names.contains(h))
            .forEach(h -> problems.add(id + ": host " + h + " is not among the dnsNames of Certificate " + K8sManifestsTest.name(certificate)));
        tlsHosts.addAll(tls.getHosts());
      }
      for (IngressRule rule : ingress.getSpec().getRules()) {
        if (!tlsHosts.contains(rule.getHost())) {
          problems.add(id + ": host " + rule.getHost() + " is served without TLS");
        }
        for (HTTPIngressPath path : rule.getHttp().getPaths()) {
          String service = path.getBackend().getService().getName();
          String port = path.getBackend().getService().getPort().getName();
          Optional<Service> target = K8sManifestsTest.of(objects, Service.class).stream()
              .filter(s -> K8sManifestsTest.name(s).equals(service)).findFirst();
          if (target.isEmpty() || target.get().getSpec().getPorts().stream().noneMatch(sp -> port.equals(sp.getName()))) {
            problems.add(id + ": backend " + service + ":" + port + " is no Service port");
          }
          assertThat(path.getPathType()).isEqualTo("Prefix");
          backendProtocols.put(service + ":" + port + " " + path.getPath(), annotations.get(NGINX + "backend-protocol"));
        }
      }
    }
    assertThat(problems).isEmpty();
    assertThat(backendProtocols).as("the pods speak TLS only: the controller re-encrypts, gRPC as GRPCS")
        .containsExactlyInAnyOrderEntriesOf(Map.of(
            "conclave:grpc /", "GRPCS",
            "conclave:http /", "HTTPS",
            "conclave-pack-host:http /mcp", "HTTPS"));
    // an agent's stream lasts for days, the console's event-bus WebSocket as long as the page: no 60 s proxy timeout
    for (Ingress ingress : K8sManifestsTest.of(objects, Ingress.class)) {
      assertThat(Integer.parseInt(ingress.getMetadata().getAnnotations().get(NGINX + "proxy-read-timeout")))
          .as(K8sManifestsTest.name(ingress) + ": proxy-read-timeout, s").isGreaterThanOrEqualTo(3600);
    }
    Ingress grpc = K8sManifestsTest.of(objects, Ingress.class).stream()
        .filter(i -> "GRPCS".equals(i.getMetadata().getAnnotations().get(NGINX + "backend-protocol"))).findFirst().orElseThrow();
    assertThat(grpc.getMetadata().getAnnotations().get(NGINX + "server-snippet")).contains("grpc_read_timeout 3600s");
  }

  static Map<String, String> labels(LabelSelector selector) {
    assertThat(selector.getMatchExpressions()).as("selectors by labels alone: %s", selector).isNullOrEmpty();
    return Optional.ofNullable(selector.getMatchLabels()).orElse(Map.of());
  }
}
