package dev.conclave.node.monitoring;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What k8s/monitoring/ ships (issue 44): every metric its dashboards and alert rules read is one the
 * catalogue defines ({@link MetricNames}; Vert.x and JVM metrics keep their own names) and one a
 * running node with every role serves at {@code /metrics}; the rules parse with promtool (Debian's
 * {@code prometheus} package); the PrometheusRule carries exactly the groups of alerts.yml.
 */
class MonitoringRulesTest {

  private static final Path MONITORING = Path.of("..", "k8s", "monitoring");
  /** A metric in an expression: the families Conclave, Vert.x and the JVM binder write. */
  private static final Pattern METRIC = Pattern.compile("\\b((?:conclave|vertx|jvm|process|system)_[a-z0-9_]+)\\b");
  /** What the Prometheus endpoint appends to a Micrometer name, by meter type. */
  private static final Pattern SUFFIX = Pattern.compile("_(total|bucket|count|sum|max)$");

  @Test
  void everyRuleParsesWithPromtool() throws Exception {
    String promtool = Stream.of(System.getenv("PATH").split(File.pathSeparator)).map(dir -> Path.of(dir, "promtool"))
      .filter(Files::isExecutable).findFirst().map(Path::toString)
      .orElseThrow(() -> new AssertionError("promtool is not installed (apt-get install -y prometheus)"));
    Process check = new ProcessBuilder(promtool, "check", "rules", MONITORING.resolve("alerts.yml").toString())
      .redirectErrorStream(true).start();
    assertThat(check.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(check.exitValue()).as(out).isZero();
    assertThat(out).contains("SUCCESS: " + alerts().size() + " rules found");
  }

  @Test
  void thePrometheusRuleCarriesTheGroupsOfAlertsYml() throws Exception {
    Map<String, Object> rule = yaml("prometheusrule.yaml");
    assertThat(rule.get("kind")).isEqualTo("PrometheusRule");
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) rule.get("spec");
    assertThat(spec.get("groups")).isEqualTo(yaml("alerts.yml").get("groups"));
  }

  @Test
  void everyMetricTheDashboardsAndRulesReadIsCataloguedAndServed() throws Exception {
    Set<String> used = new TreeSet<>();
    for (String expr : expressions()) {
      Matcher m = METRIC.matcher(expr);
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    assertThat(used).as("metrics read by k8s/monitoring").contains("conclave_node_ready", "conclave_gateway_ledger_queued");

    Set<String> catalogue = catalogue();
    List<String> uncatalogued = used.stream().filter(n -> n.startsWith("conclave_"))
      .filter(n -> !catalogue.contains(n) && !catalogue.contains(SUFFIX.matcher(n).replaceFirst(""))).toList();
    assertThat(uncatalogued).as("conclave_ metrics not in MetricNames").isEmpty();

    Set<String> served = served(used);
    assertThat(used.stream().filter(n -> !served.contains(n)).toList()).as("metrics a running node does not serve").isEmpty();
  }

  /**
   * The names a node with every role serves, once it serves all of {@code wanted} or after 30 s: the
   * periodic checks must have run, and the JVM's GC pause timer appears only after a first collection
   * (one is asked for here; a young JVM on a quiet machine may not have collected yet).
   */
  private static Set<String> served(Set<String> wanted) throws Exception {
    try (TestNode node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole()).start()) {
      System.gc();
      Vertx vertx = Vertx.vertx();
      try {
        WebClient http = WebClient.create(vertx);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Set<String> names;
        do {
          String body = http.request(HttpMethod.GET, node.httpPort(), "127.0.0.1", "/metrics").send().await().bodyAsString();
          names = body.lines().filter(l -> !l.startsWith("#") && !l.isBlank())
            .map(l -> l.split("[{ ]", 2)[0]).collect(Collectors.toCollection(TreeSet::new));
          if (names.containsAll(wanted)) {
            break;
          }
          Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return names;
      } finally {
        vertx.close().await();
      }
    }
  }

  private static Set<String> catalogue() throws IllegalAccessException {
    Set<String> names = new TreeSet<>();
    for (Field f : MetricNames.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        names.add((String) f.get(null));
      }
    }
    return names;
  }

  private static List<String> expressions() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (Map<String, Object> rule : alerts()) {
      exprs.add((String) rule.get("expr"));
    }
    try (Stream<Path> files = Files.list(MONITORING.resolve("dashboards"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        JsonObject dashboard = new JsonObject(Files.readString(file));
        JsonArray panels = dashboard.getJsonArray("panels");
        assertThat(panels).as(file.toString()).isNotEmpty();
        for (Object panel : panels) {
          for (Object target : ((JsonObject) panel).getJsonArray("targets")) {
            exprs.add(((JsonObject) target).getString("expr"));
          }
        }
      }
    }
    return exprs;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> alerts() throws Exception {
    List<Map<String, Object>> rules = new ArrayList<>();
    for (Object group : (List<Object>) yaml("alerts.yml").get("groups")) {
      rules.addAll((List<Map<String, Object>>) ((Map<String, Object>) group).get("rules"));
    }
    return rules;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> yaml(String file) throws Exception {
    return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(MONITORING.resolve(file)));
  }
}
