package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conclave.platform.metrics.MetricNames;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleHandler;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.deser.BeanDeserializerBuilder;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * Renders every overlay under {@code k8s/overlays} offline (see {@link Kustomize}), parses each
 * document into the typed fabric8 Kubernetes model with unknown fields failing, and checks what a
 * Conclave deployment relies on: probes on the health endpoints, a PodDisruptionBudget per role, a
 * termination grace period that covers the preStop pause and the node's own drain, a restricted
 * securityContext with writable emptyDirs, resources with JVM flags that follow them, spreading, an
 * HPA on the gateway, a pinned image, and only configuration variables the README documents.
 */
class K8sManifestsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path K8S = ROOT.resolve("k8s");
  private static final String ROLE_LABEL = "conclave.dev/role";
  private static final Set<String> ROLES = Set.of("gateway", "coordinator", "pack-host");
  /** Variables a Conclave container may set that are not Conclave settings. */
  private static final Set<String> OTHER_ENV = Set.of("POD_NAMESPACE", "CLUSTER_DOMAIN", "JAVA_TOOL_OPTIONS");
  /** Secrets an overlay expects to exist already (created out of band, see docs/operations.md). */
  static final Map<String, Set<String>> EXTERNAL_SECRETS = Map.of("production", Set.of("conclave", "conclave-admin"));
  private static final Pattern MAX_RAM_PERCENTAGE = Pattern.compile("-XX:MaxRAMPercentage=(\\d+(?:\\.\\d+)?)");
  private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
      "ConfigMap", ConfigMap.class,
      "Deployment", Deployment.class,
      "StatefulSet", StatefulSet.class,
      "Service", Service.class,
      "ServiceAccount", ServiceAccount.class,
      "Secret", Secret.class,
      "PodDisruptionBudget", PodDisruptionBudget.class,
      "HorizontalPodAutoscaler", HorizontalPodAutoscaler.class,
      "NetworkPolicy", io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class,
      "Ingress", io.fabric8.kubernetes.api.model.networking.v1.Ingress.class);

  /**
   * Custom resources (cert-manager), which have no fabric8 model: read as generic resources, their
   * apiVersion checked here and their fields by {@link K8sTlsManifestsTest}.
   */
  static final Map<String, String> GENERIC_KINDS = Map.of(
      "Certificate", "cert-manager.io/v1",
      "Issuer", "cert-manager.io/v1");
  private static final JsonMapper LENIENT = JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** Jackson with the model's catch-all for unknown fields switched off: an unknown field fails. */
  private static final JsonMapper STRICT = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .addModule(new SimpleModule("strict-kubernetes-model").setDeserializerModifier(new ValueDeserializerModifier() {
        @Override
        public BeanDeserializerBuilder updateBuilder(DeserializationConfig config, BeanDescription.Supplier bean,
            BeanDeserializerBuilder builder) {
          builder.setAnySetter(null);
          builder.setIgnoreUnknownProperties(false);
          return builder;
        }
      }))
      .build();

  static Stream<String> overlays() throws IOException {
    try (Stream<Path> dirs = Files.list(K8S.resolve("overlays"))) {
      List<String> names = dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
      assertThat(names).contains("local", "production");
      return names.stream();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // the validator itself

  @Test
  void strictParsingRejectsUnknownFields() {
    Map<String, Object> doc = Kustomize.loadAll(K8S.resolve("base/gateway.yaml")).get(0);
    assertThat(parse(doc)).isInstanceOf(Deployment.class);

    Map<String, Object> typo = Kustomize.loadAll(K8S.resolve("base/gateway.yaml")).get(0);
    Kustomize.castMap(Kustomize.child(typo, "spec")).put("replica", 3);
    assertThatThrownBy(() -> parse(typo)).hasMessageContaining("replica");

    Map<String, Object> nested = Kustomize.loadAll(K8S.resolve("base/gateway.yaml")).get(0);
    Map<String, Object> container = Kustomize.castMap(Kustomize.list(
        Kustomize.child(Kustomize.child(Kustomize.child(nested, "spec"), "template"), "spec"), "containers").get(0));
    container.put("imagePullPolicyy", "Always");
    assertThatThrownBy(() -> parse(nested)).hasMessageContaining("imagePullPolicyy");
  }

  @Test
  void rendererAppliesJson6902Patches() {
    Map<String, Object> doc = new LinkedHashMap<>(Map.of("spec", new LinkedHashMap<>(Map.of("list", new ArrayList<>(List.of(1, 2))))));
    Kustomize.Json6902.apply(doc, Map.of("op", "add", "path", "/spec/list/-", "value", 3));
    Kustomize.Json6902.apply(doc, Map.of("op", "replace", "path", "/spec/list/0", "value", 0));
    Kustomize.Json6902.apply(doc, Map.of("op", "add", "path", "/spec/x~1y", "value", "z"));
    Kustomize.Json6902.apply(doc, Map.of("op", "remove", "path", "/spec/list/1"));
    assertThat(doc).isEqualTo(Map.of("spec", Map.of("list", List.of(0, 3), "x/y", "z")));
    assertThatThrownBy(() -> Kustomize.Json6902.apply(doc, Map.of("op", "replace", "path", "/spec/nope", "value", 1)))
        .hasMessageContaining("does not exist");
  }

  /**
   * Where kubectl is installed (Debian's package brings kustomize with it), the renderer's output is
   * the same as {@code kubectl kustomize}'s, document for document.
   */
  @ParameterizedTest
  @MethodSource("overlays")
  void rendersWhatKubectlKustomizeRenders(String overlay) throws Exception {
    Optional<Path> kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
        .filter(d -> !d.isEmpty())
        .map(d -> Path.of(d, "kubectl"))
        .filter(Files::isExecutable)
        .findFirst();
    Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not installed: the offline renderer alone is checked");
    Process p = new ProcessBuilder(kubectl.get().toString(), "kustomize", K8S.resolve("overlays").resolve(overlay).toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    List<Map<String, Object>> real;
    try (var in = new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)) {
      real = Kustomize.loadAll(in);
    }
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("kubectl kustomize ends").isTrue();
    assertThat(p.exitValue()).as("kubectl kustomize exit code").isZero();
    List<String> differences = new ArrayList<>();
    diff("", byId(Kustomize.build(K8S.resolve("overlays").resolve(overlay))), byId(real), differences);
    assertThat(differences).as(overlay + ": this renderer vs kubectl kustomize").isEmpty();
  }

  private static void diff(String path, Object mine, Object theirs, List<String> out) {
    if (mine instanceof Map<?, ?> a && theirs instanceof Map<?, ?> b) {
      Set<Object> keys = new java.util.TreeSet<>(java.util.Comparator.comparing(Object::toString));
      keys.addAll(a.keySet());
      keys.addAll(b.keySet());
      for (Object k : keys) {
        diff(path + "/" + k, a.get(k), b.get(k), out);
      }
    } else if (mine instanceof List<?> a && theirs instanceof List<?> b && a.size() == b.size()) {
      for (int i = 0; i < a.size(); i++) {
        diff(path + "/" + i, a.get(i), b.get(i), out);
      }
    } else if (!Objects.equals(mine, theirs)) {
      out.add(path + ": " + mine + " here, " + theirs + " from kubectl kustomize");
    }
  }

  private static Map<String, Map<String, Object>> byId(List<Map<String, Object>> docs) {
    Map<String, Map<String, Object>> out = new java.util.TreeMap<>();
    for (Map<String, Object> doc : docs) {
      if ("Secret".equals(doc.get("kind")) && doc.get("data") != null) {
        // kustomize folds long base64 values over lines, which decoding ignores
        Kustomize.castMap(doc.get("data")).replaceAll((k, v) -> ((String) v).replaceAll("\\s", ""));
      }
      out.put(doc.get("kind") + "/" + Kustomize.name(doc), doc);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // every overlay

  @ParameterizedTest
  @MethodSource("overlays")
  void overlayRendersIntoTheTypedModel(String overlay) {
    List<HasMetadata> objects = render(overlay);
    List<String> problems = new ArrayList<>();
    for (HasMetadata o : objects) {
      String id = o.getKind() + "/" + o.getMetadata().getName();
      if (!(o instanceof GenericKubernetesResource) && !HasMetadata.getApiVersion(o.getClass()).equals(o.getApiVersion())) {
        problems.add(id + ": apiVersion " + o.getApiVersion() + ", expected " + HasMetadata.getApiVersion(o.getClass()));
      }
      if (blank(o.getMetadata().getName())) {
        problems.add(o.getKind() + ": no metadata.name");
      }
    }
    for (Deployment d : of(objects, Deployment.class)) {
      // every Deployment is a Conclave role, so the role checks below see them all
      String role = d.getSpec().getTemplate().getMetadata().getLabels().get(ROLE_LABEL);
      if (!ROLES.contains(role)) {
        problems.add("Deployment/" + name(d) + ": its pods are labelled " + ROLE_LABEL + "=" + role + ", not a Conclave role");
      }
      checkWorkload("Deployment/" + name(d), d.getSpec().getSelector(), d.getSpec().getTemplate().getMetadata().getLabels(),
          d.getSpec().getTemplate().getSpec(), problems);
    }
    for (StatefulSet s : of(objects, StatefulSet.class)) {
      checkWorkload("StatefulSet/" + name(s), s.getSpec().getSelector(), s.getSpec().getTemplate().getMetadata().getLabels(),
          s.getSpec().getTemplate().getSpec(), problems);
    }
    for (Service s : of(objects, Service.class)) {
      String id = "Service/" + name(s);
      if (s.getSpec().getPorts() == null || s.getSpec().getPorts().isEmpty()) {
        problems.add(id + ": no ports");
        continue;
      }
      List<PodSpec> pods = podsSelectedBy(objects, s.getSpec().getSelector());
      if (pods.isEmpty()) {
        problems.add(id + ": selector " + s.getSpec().getSelector() + " matches no pod template");
      }
      for (ServicePort port : s.getSpec().getPorts()) {
        IntOrString target = port.getTargetPort() != null ? port.getTargetPort() : new IntOrString(port.getPort());
        for (PodSpec pod : pods) {
          if (resolvePort(pod.getContainers().get(0), target) == null) {
            problems.add(id + ": targetPort " + portName(target) + " is not a port of the pods it selects");
          }
        }
      }
    }
    // every Secret reference resolves, in the output or among the overlay's documented external ones
    Map<String, Set<String>> secrets = new LinkedHashMap<>();
    for (Secret s : of(objects, Secret.class)) {
      Set<String> keys = new LinkedHashSet<>();
      if (s.getData() != null) {
        keys.addAll(s.getData().keySet());
        s.getData().values().forEach(v -> Base64.getDecoder().decode(v));
      }
      if (s.getStringData() != null) {
        keys.addAll(s.getStringData().keySet());
      }
      secrets.put(name(s), keys);
    }
    for (PodSpec pod : pods(objects)) {
      for (Container c : pod.getContainers()) {
        for (EnvVar e : env(c)) {
          if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
            String secret = e.getValueFrom().getSecretKeyRef().getName();
            String key = e.getValueFrom().getSecretKeyRef().getKey();
            if (secrets.containsKey(secret)) {
              if (!secrets.get(secret).contains(key)) {
                problems.add(e.getName() + ": Secret " + secret + " has no key " + key);
              }
            } else if (!EXTERNAL_SECRETS.getOrDefault(overlay, Set.of()).contains(secret)) {
              problems.add(e.getName() + ": Secret " + secret + " is neither rendered nor documented as external");
            }
          }
        }
      }
      if (pod.getServiceAccountName() != null
          && of(objects, ServiceAccount.class).stream().noneMatch(sa -> name(sa).equals(pod.getServiceAccountName()))) {
        problems.add("ServiceAccount " + pod.getServiceAccountName() + " is not rendered");
      }
    }
    assertThat(problems).as(overlay).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void everyRoleIsDeployedWithProbesGraceAndASafeDrain(String overlay) {
    List<HasMetadata> objects = render(overlay);
    List<String> problems = new ArrayList<>();
    Set<String> roles = new LinkedHashSet<>();
    for (Deployment d : conclaveDeployments(objects)) {
      String id = "Deployment/" + name(d);
      String role = d.getSpec().getTemplate().getMetadata().getLabels().get(ROLE_LABEL);
      roles.add(role);
      PodSpec pod = d.getSpec().getTemplate().getSpec();
      Container c = pod.getContainers().get(0);
      if (!Objects.equals(role, envValue(c, "CONCLAVE_ROLES"))) {
        problems.add(id + ": CONCLAVE_ROLES is " + envValue(c, "CONCLAVE_ROLES") + ", the pods are labelled " + role);
      }
      // a node listens on loopback unless told otherwise: a pod must listen on its network
      if (!"0.0.0.0".equals(envValue(c, "CONCLAVE_BIND_HOST"))) {
        problems.add(id + ": CONCLAVE_BIND_HOST is " + envValue(c, "CONCLAVE_BIND_HOST") + ", so the pod would serve loopback only");
      }
      checkHttpProbe(id + " livenessProbe", c, c.getLivenessProbe(), "/health/live", problems);
      checkHttpProbe(id + " readinessProbe", c, c.getReadinessProbe(), "/health/ready", problems);
      if (c.getStartupProbe() != null) {
        checkHttpProbe(id + " startupProbe", c, c.getStartupProbe(), "/health/live", problems);
      }
      Map<String, Integer> ports = new LinkedHashMap<>();
      for (ContainerPort p : Optional.ofNullable(c.getPorts()).orElse(List.of())) {
        ports.put(p.getName(), p.getContainerPort());
      }
      if (!Objects.equals(ports.get("http"), 8080) || !Objects.equals(ports.get("grpc"), 50051)) {
        problems.add(id + ": ports http 8080 and grpc 50051 expected, got " + ports);
      }
      String dns = envValue(c, "CONCLAVE_CLUSTER_K8S_DNS");
      if (dns == null) {
        problems.add(id + ": CONCLAVE_CLUSTER_K8S_DNS is not set");
      } else {
        String service = dns.split("\\.")[0];
        Optional<Service> headless = of(objects, Service.class).stream().filter(s -> name(s).equals(service)).findFirst();
        if (headless.isEmpty() || !"None".equals(headless.get().getSpec().getClusterIP())
            || !Boolean.TRUE.equals(headless.get().getSpec().getPublishNotReadyAddresses())) {
          problems.add(id + ": CONCLAVE_CLUSTER_K8S_DNS names " + service + ", which is not a headless Service publishing not-ready pods");
        }
      }

      // rolling updates never go below the desired count
      var rolling = d.getSpec().getStrategy() == null ? null : d.getSpec().getStrategy().getRollingUpdate();
      if (rolling == null || rolling.getMaxUnavailable() == null || !Objects.equals(rolling.getMaxUnavailable().getIntVal(), 0)) {
        problems.add(id + ": rollingUpdate.maxUnavailable must be 0");
      }

      // grace: preStop pause + the node's drain must end before the kubelet's SIGKILL
      int shutdownGrace = Integer.parseInt(Optional.ofNullable(envValue(c, "CONCLAVE_SHUTDOWN_GRACE_SECONDS")).orElse("10"));
      int preStop = preStopSeconds(c.getLifecycle());
      if (preStop <= 0) {
        problems.add(id + ": no preStop pause (sleep) before SIGTERM");
      }
      Long grace = pod.getTerminationGracePeriodSeconds();
      if (grace == null || grace <= shutdownGrace + preStop) {
        problems.add(id + ": terminationGracePeriodSeconds " + grace + " must exceed CONCLAVE_SHUTDOWN_GRACE_SECONDS "
            + shutdownGrace + " + preStop " + preStop);
      }

      // a PodDisruptionBudget that selects exactly this role's pods and lets a node drain proceed
      List<PodDisruptionBudget> pdbs = of(objects, PodDisruptionBudget.class).stream()
          .filter(p -> selects(p.getSpec().getSelector(), d.getSpec().getTemplate().getMetadata().getLabels()))
          .toList();
      if (pdbs.size() != 1) {
        problems.add(id + ": " + pdbs.size() + " PodDisruptionBudgets select its pods, expected 1");
      } else {
        PodDisruptionBudget pdb = pdbs.get(0);
        if (!role.equals(matchLabels(pdb.getSpec().getSelector()).get(ROLE_LABEL))) {
          problems.add("PodDisruptionBudget/" + name(pdb) + ": its selector must name the role " + role);
        }
        if (pdb.getSpec().getMaxUnavailable() == null || pdb.getSpec().getMinAvailable() != null) {
          // minAvailable with one replica (overlays/local) would block every node drain
          problems.add("PodDisruptionBudget/" + name(pdb) + ": use maxUnavailable, not minAvailable");
        }
      }
    }
    assertThat(roles).as(overlay + ": roles with a Deployment").containsExactlyInAnyOrderElementsOf(ROLES);
    assertThat(problems).as(overlay).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void podsAreHardenedSizedAndSpread(String overlay) throws IOException {
    List<HasMetadata> objects = render(overlay);
    String imageDataDir = dockerfileEnv("CONCLAVE_DATA_DIR");
    // a flag on the java command line wins over JAVA_TOOL_OPTIONS
    Matcher entrypoint = Pattern.compile("(?m)^ENTRYPOINT .*").matcher(Files.readString(ROOT.resolve("deploy/Dockerfile"), StandardCharsets.UTF_8));
    assertThat(entrypoint.find()).as("deploy/Dockerfile has an ENTRYPOINT").isTrue();
    Matcher entrypointRam = MAX_RAM_PERCENTAGE.matcher(entrypoint.group());
    String imageMaxRam = entrypointRam.find() ? entrypointRam.group(1) : null;
    List<String> problems = new ArrayList<>();
    for (Deployment d : conclaveDeployments(objects)) {
      String id = "Deployment/" + name(d);
      PodSpec pod = d.getSpec().getTemplate().getSpec();
      Container c = pod.getContainers().get(0);
      String role = d.getSpec().getTemplate().getMetadata().getLabels().get(ROLE_LABEL);

      PodSecurityContext psc = pod.getSecurityContext();
      SecurityContext sc = c.getSecurityContext();
      if (psc == null || !Boolean.TRUE.equals(psc.getRunAsNonRoot()) || psc.getRunAsUser() == null || psc.getRunAsUser() == 0) {
        // a numeric runAsUser lets the kubelet check runAsNonRoot whatever the image says (DockerfileTest: the image's own UID)
        problems.add(id + ": pod securityContext needs runAsNonRoot: true and a numeric non-zero runAsUser");
      }
      SeccompProfile seccomp = sc != null && sc.getSeccompProfile() != null ? sc.getSeccompProfile()
          : psc != null ? psc.getSeccompProfile() : null;
      if (seccomp == null || !"RuntimeDefault".equals(seccomp.getType())) {
        problems.add(id + ": seccompProfile RuntimeDefault expected");
      }
      if (sc == null || !Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()) || !Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())
          || Boolean.TRUE.equals(sc.getPrivileged()) || sc.getCapabilities() == null
          || !Objects.equals(sc.getCapabilities().getDrop(), List.of("ALL"))
          || (sc.getCapabilities().getAdd() != null && !sc.getCapabilities().getAdd().isEmpty())) {
        problems.add(id + ": container securityContext needs readOnlyRootFilesystem: true, allowPrivilegeEscalation: false,"
            + " capabilities.drop [ALL] and nothing added");
      }

      // a read-only root: every path the node writes is an emptyDir
      String dataDir = Optional.ofNullable(envValue(c, "CONCLAVE_DATA_DIR")).orElse(imageDataDir);
      for (String path : List.of("/tmp", dataDir)) {
        Optional<VolumeMount> mount = Optional.ofNullable(c.getVolumeMounts()).orElse(List.of()).stream()
            .filter(m -> m.getMountPath().equals(path)).findFirst();
        Optional<Volume> volume = mount.flatMap(m -> Optional.ofNullable(pod.getVolumes()).orElse(List.of()).stream()
            .filter(v -> v.getName().equals(m.getName())).findFirst());
        if (volume.isEmpty() || volume.get().getEmptyDir() == null || Boolean.TRUE.equals(mount.get().getReadOnly())) {
          problems.add(id + ": " + path + " must be a writable emptyDir");
        }
      }

      // resources, and a heap that follows the memory limit
      var res = c.getResources();
      if (res == null || res.getRequests() == null || res.getLimits() == null
          || !res.getRequests().containsKey("cpu") || !res.getRequests().containsKey("memory")
          || !res.getLimits().containsKey("cpu") || !res.getLimits().containsKey("memory")) {
        problems.add(id + ": requests and limits of cpu and memory expected, got " + res);
      } else {
        for (String r : List.of("cpu", "memory")) {
          BigDecimal req = res.getRequests().get(r).getNumericalAmount();
          BigDecimal lim = res.getLimits().get(r).getNumericalAmount();
          if (req.compareTo(lim) > 0) {
            problems.add(id + ": " + r + " request above its limit");
          }
        }
        String jvm = Optional.ofNullable(envValue(c, "JAVA_TOOL_OPTIONS")).orElse("");
        Matcher pct = MAX_RAM_PERCENTAGE.matcher(jvm);
        if (!pct.find()) {
          problems.add(id + ": JAVA_TOOL_OPTIONS must size the heap from the memory limit (-XX:MaxRAMPercentage)");
        } else if (imageMaxRam != null && !imageMaxRam.equals(pct.group(1))) {
          problems.add(id + ": JAVA_TOOL_OPTIONS has -XX:MaxRAMPercentage=" + pct.group(1) + ", but the image's entrypoint passes "
              + imageMaxRam + ", which wins");
        } else {
          double heap = Double.parseDouble(pct.group(1)) / 100 * Quantity.getAmountInBytes(res.getLimits().get("memory")).doubleValue();
          Matcher direct = Pattern.compile("-XX:MaxDirectMemorySize=(\\d+)([mMgG])").matcher(jvm);
          double directBytes = direct.find()
              ? Long.parseLong(direct.group(1)) * (direct.group(2).equalsIgnoreCase("g") ? 1L << 30 : 1L << 20) : heap;
          double limit = Quantity.getAmountInBytes(res.getLimits().get("memory")).doubleValue();
          // heap + direct buffers + ~200 MiB of metaspace, code cache and thread stacks fit under the limit
          if (heap + directBytes + (200L << 20) > limit) {
            problems.add(id + ": heap " + (long) heap / (1 << 20) + " MiB + direct " + (long) directBytes / (1 << 20)
                + " MiB + 200 MiB overhead exceed the memory limit; lower MaxRAMPercentage or set MaxDirectMemorySize");
          }
        }
      }

      // replicas of a role land on different nodes (and zones) where possible
      boolean spread = Optional.ofNullable(pod.getTopologySpreadConstraints()).orElse(List.of()).stream()
          .anyMatch(t -> "kubernetes.io/hostname".equals(t.getTopologyKey())
              && role.equals(matchLabels(t.getLabelSelector()).get(ROLE_LABEL)));
      boolean antiAffinity = pod.getAffinity() != null && pod.getAffinity().getPodAntiAffinity() != null;
      if (!spread && !antiAffinity) {
        problems.add(id + ": no topologySpreadConstraints on kubernetes.io/hostname for its role, nor podAntiAffinity");
      }

      // a pinned image
      String[] image = Kustomize.splitImage(c.getImage());
      if (image[1].isEmpty() || image[1].equals(":latest")) {
        problems.add(id + ": image " + c.getImage() + " is not pinned to a tag or digest");
      }
    }
    assertThat(problems).as(overlay).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void theGatewayIsAutoscaled(String overlay) {
    List<HasMetadata> objects = render(overlay);
    Deployment gateway = conclaveDeployments(objects).stream()
        .filter(d -> "gateway".equals(d.getSpec().getTemplate().getMetadata().getLabels().get(ROLE_LABEL)))
        .findFirst().orElseThrow();
    List<HorizontalPodAutoscaler> hpas = of(objects, HorizontalPodAutoscaler.class).stream()
        .filter(h -> "Deployment".equals(h.getSpec().getScaleTargetRef().getKind())
            && name(gateway).equals(h.getSpec().getScaleTargetRef().getName()))
        .toList();
    assertThat(hpas).as(overlay + ": HPAs targeting " + name(gateway)).hasSize(1);
    HorizontalPodAutoscaler hpa = hpas.get(0);
    // with replicas in the Deployment, every apply would reset the count the HPA chose
    assertThat(gateway.getSpec().getReplicas()).as(name(gateway) + " replicas (the HPA owns them)").isNull();
    assertThat(hpa.getSpec().getScaleTargetRef().getApiVersion()).isEqualTo("apps/v1");
    assertThat(hpa.getSpec().getMinReplicas()).isNotNull().isPositive();
    assertThat(hpa.getSpec().getMaxReplicas()).isGreaterThanOrEqualTo(hpa.getSpec().getMinReplicas());
    List<MetricSpec> metrics = hpa.getSpec().getMetrics();
    assertThat(metrics).as("HPA metrics").anySatisfy(m -> {
      assertThat(m.getType()).isEqualTo("Resource");
      assertThat(m.getResource().getName()).isEqualTo("cpu");
      assertThat(m.getResource().getTarget().getType()).isEqualTo("Utilization");
    });
    // CPU utilization is relative to the request
    assertThat(gateway.getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getRequests()).containsKey("cpu");
    for (MetricSpec m : metrics) {
      if ("Pods".equals(m.getType())) {
        assertThat(m.getPods().getMetric().getName()).isEqualTo(MetricNames.GATEWAY_AGENTS_CONNECTED);
        assertThat(m.getPods().getTarget().getType()).isEqualTo("AverageValue");
      }
    }
    if (overlay.equals("production")) {
      assertThat(metrics).as("production scales on connected agents too").anyMatch(m -> "Pods".equals(m.getType()));
    }
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void everyVariableIsADocumentedSetting(String overlay) throws IOException {
    Set<String> documented = new LinkedHashSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `(CONCLAVE_[A-Z0-9_]+)` \\|").matcher(
        Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8));
    while (row.find()) {
      documented.add(row.group(1));
    }
    assertThat(documented).as("README configuration table").contains("CONCLAVE_ROLES", "CONCLAVE_SHUTDOWN_GRACE_SECONDS");
    List<String> problems = new ArrayList<>();
    for (Deployment d : conclaveDeployments(render(overlay))) {
      Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
      Set<String> defined = new LinkedHashSet<>();
      for (EnvVar e : env(c)) {
        if (e.getName().startsWith("CONCLAVE_") ? !documented.contains(e.getName()) : !OTHER_ENV.contains(e.getName())) {
          problems.add(name(d) + ": " + e.getName() + " is not in the README's configuration table");
        }
        Matcher ref = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)").matcher(Objects.toString(e.getValue(), ""));
        while (ref.find()) {
          if (!defined.contains(ref.group(1))) {
            problems.add(name(d) + ": " + e.getName() + " refers to $(" + ref.group(1) + "), not defined before it");
          }
        }
        defined.add(e.getName());
      }
    }
    assertThat(problems).as(overlay).isEmpty();
  }

  /** The base's image is the one the documented build command tags. */
  @Test
  void theBaseImageIsTheOneTheDocumentedCommandBuilds() throws IOException {
    Matcher build = Pattern.compile("docker build -f deploy/Dockerfile -t (\\S+) \\.")
        .matcher(Files.readString(ROOT.resolve("deploy/Dockerfile"), StandardCharsets.UTF_8));
    assertThat(build.find()).as("deploy/Dockerfile documents its build command").isTrue();
    String tag = build.group(1);
    Set<String> images = new LinkedHashSet<>();
    for (Map<String, Object> doc : Kustomize.build(K8S.resolve("base"))) {
      if (parse(doc) instanceof Deployment d) {
        images.add(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
      }
    }
    assertThat(images).containsExactly(tag);
    Path ops = ROOT.resolve("docs/operations.md");
    assertThat(ops).exists();
    assertThat(Files.readString(ops, StandardCharsets.UTF_8)).contains("docker build -f deploy/Dockerfile -t " + tag + " .");
  }

  // ---------------------------------------------------------------------------------------------

  static List<HasMetadata> render(String overlay) {
    List<HasMetadata> objects = new ArrayList<>();
    for (Map<String, Object> doc : Kustomize.build(K8S.resolve("overlays").resolve(overlay))) {
      objects.add(parse(doc));
    }
    return objects;
  }

  static HasMetadata parse(Map<String, Object> doc) {
    String generic = GENERIC_KINDS.get((String) doc.get("kind"));
    if (generic != null) {
      if (!generic.equals(doc.get("apiVersion"))) {
        throw new IllegalStateException(doc.get("kind") + "/" + Kustomize.name(doc) + ": apiVersion " + doc.get("apiVersion")
            + ", expected " + generic);
      }
      return LENIENT.convertValue(doc, GenericKubernetesResource.class);
    }
    Class<? extends HasMetadata> type = KINDS.get((String) doc.get("kind"));
    if (type == null) {
      throw new IllegalStateException("kind " + doc.get("kind") + " is not checked by this test; add it to KINDS");
    }
    try {
      return STRICT.convertValue(doc, type);
    } catch (RuntimeException e) {
      throw new IllegalStateException(doc.get("kind") + "/" + Kustomize.name(doc) + ": " + e.getMessage(), e);
    }
  }

  private static void checkWorkload(String id, LabelSelector selector, Map<String, String> labels, PodSpec pod,
      List<String> problems) {
    if (selector == null || matchLabels(selector).isEmpty() || !selects(selector, labels)) {
      problems.add(id + ": selector " + selector + " does not match the template labels " + labels);
    }
    if (pod.getContainers() == null || pod.getContainers().isEmpty()) {
      problems.add(id + ": no containers");
      return;
    }
    for (Container c : pod.getContainers()) {
      if (blank(c.getName()) || blank(c.getImage())) {
        problems.add(id + ": a container without name or image");
      }
      if (c.getPorts() == null || c.getPorts().isEmpty()) {
        problems.add(id + ": container " + c.getName() + " declares no ports");
      } else {
        for (ContainerPort p : c.getPorts()) {
          if (p.getContainerPort() == null || blank(p.getName())) {
            problems.add(id + ": container " + c.getName() + " has a port without number or name");
          }
        }
      }
    }
  }

  private static void checkHttpProbe(String id, Container c, Probe probe, String path, List<String> problems) {
    HTTPGetAction get = probe == null ? null : probe.getHttpGet();
    if (get == null) {
      problems.add(id + ": missing, an httpGet on " + path + " expected");
      return;
    }
    if (!path.equals(get.getPath()) || !Objects.equals(resolvePort(c, get.getPort()), 8080)) {
      problems.add(id + ": httpGet " + get.getPath() + " on port " + portName(get.getPort()) + ", expected " + path + " on 8080");
    }
  }

  private static int preStopSeconds(Lifecycle lifecycle) {
    LifecycleHandler h = lifecycle == null ? null : lifecycle.getPreStop();
    if (h == null) {
      return 0;
    }
    if (h.getSleep() != null) {
      return h.getSleep().getSeconds().intValue();
    }
    if (h.getExec() != null && h.getExec().getCommand() != null) {
      List<String> cmd = h.getExec().getCommand();
      if (cmd.size() == 2 && cmd.get(0).equals("sleep") && cmd.get(1).matches("\\d+")) {
        return Integer.parseInt(cmd.get(1));
      }
    }
    return 0;
  }

  static Integer resolvePort(Container c, IntOrString port) {
    if (port == null) {
      return null;
    }
    for (ContainerPort p : Optional.ofNullable(c.getPorts()).orElse(List.of())) {
      if (port.getStrVal() != null ? port.getStrVal().equals(p.getName()) : port.getIntVal().equals(p.getContainerPort())) {
        return p.getContainerPort();
      }
    }
    return null;
  }

  private static String portName(IntOrString port) {
    return port == null ? "null" : port.getStrVal() != null ? port.getStrVal() : String.valueOf(port.getIntVal());
  }

  private static Map<String, String> matchLabels(LabelSelector selector) {
    if (selector == null || selector.getMatchLabels() == null) {
      return Map.of();
    }
    if (selector.getMatchExpressions() != null && !selector.getMatchExpressions().isEmpty()) {
      throw new IllegalStateException("matchExpressions are not checked by this test: " + selector);
    }
    return selector.getMatchLabels();
  }

  private static boolean selects(LabelSelector selector, Map<String, String> labels) {
    Map<String, String> want = matchLabels(selector);
    return !want.isEmpty() && labels != null && labels.entrySet().containsAll(want.entrySet());
  }

  private static List<PodSpec> podsSelectedBy(List<HasMetadata> objects, Map<String, String> selector) {
    List<PodSpec> pods = new ArrayList<>();
    if (selector == null || selector.isEmpty()) {
      return pods;
    }
    for (Deployment d : of(objects, Deployment.class)) {
      if (d.getSpec().getTemplate().getMetadata().getLabels().entrySet().containsAll(selector.entrySet())) {
        pods.add(d.getSpec().getTemplate().getSpec());
      }
    }
    for (StatefulSet s : of(objects, StatefulSet.class)) {
      if (s.getSpec().getTemplate().getMetadata().getLabels().entrySet().containsAll(selector.entrySet())) {
        pods.add(s.getSpec().getTemplate().getSpec());
      }
    }
    return pods;
  }

  static List<PodSpec> pods(List<HasMetadata> objects) {
    List<PodSpec> pods = new ArrayList<>();
    of(objects, Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
    of(objects, StatefulSet.class).forEach(s -> pods.add(s.getSpec().getTemplate().getSpec()));
    return pods;
  }

  /** The Deployments that run conclave-node (the local overlay adds PostgreSQL, which is not one). */
  static List<Deployment> conclaveDeployments(List<HasMetadata> objects) {
    return of(objects, Deployment.class).stream()
        .filter(d -> d.getSpec().getTemplate().getMetadata().getLabels().containsKey(ROLE_LABEL))
        .toList();
  }

  static List<EnvVar> env(Container c) {
    return Optional.ofNullable(c.getEnv()).orElse(List.of());
  }

  static String envValue(Container c, String name) {
    return env(c).stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst().orElse(null);
  }

  private static String dockerfileEnv(String name) throws IOException {
    Matcher m = Pattern.compile("(?m)^ENV " + name + "=(\\S+)")
        .matcher(Files.readString(ROOT.resolve("deploy/Dockerfile"), StandardCharsets.UTF_8));
    assertThat(m.find()).as("deploy/Dockerfile sets " + name).isTrue();
    return m.group(1);
  }

  static <T> List<T> of(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static String name(HasMetadata o) {
    return o.getMetadata().getName();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
