package dev.conclave.platform.arch;

import dev.conclave.platform.arch.SourceTree.Source;
import dev.conclave.platform.metrics.MetricNames;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One metrics convention (issue 16): every metric name is a constant of {@link MetricNames}, in the
 * style {@code conclave_<area>_<thing>[_<unit>]}, and no other source registers a metric with a
 * string literal for its name.
 */
class MetricCatalogueTest {

  /** Lower case, underscores, at least an area and a thing; a counter's {@code _total} is Micrometer's to add. */
  static final Pattern STYLE = Pattern.compile("conclave_[a-z]+(_[a-z0-9]+)+");

  /** A meter made with a string literal for its name: a registry method or a meter builder. */
  static final Pattern LITERAL_METER = Pattern.compile(
    "(\\.(counter|timer|gauge|summary|gaugeCollectionSize|gaugeMapSize|more\\(\\)\\.\\w+)"
      + "|\\b(Counter|Timer|Gauge|DistributionSummary|LongTaskTimer|FunctionCounter|FunctionTimer|TimeGauge)\\.builder)"
      + "\\(\\s*\"");

  /**
   * A string literal in the catalogue's style, outside the catalogue (event-bus addresses, which use
   * dots, and one-word names such as the cookie {@code conclave_session} do not match).
   */
  static final Pattern METRIC_LITERAL = Pattern.compile("\"conclave_[a-z]+_[a-z0-9_]+\"");

  @Test
  void theCatalogue() throws Exception {
    Map<String, String> catalogue = catalogue();
    assertThat(catalogue).isNotEmpty();
    catalogue.forEach((field, name) -> {
      assertThat(name).as("MetricNames.%s", field).matches(STYLE);
      assertThat(name).as("MetricNames.%s: Micrometer adds _total to a counter", field).doesNotEndWith("_total");
    });
    assertThat(new HashSet<>(catalogue.values())).as("no name twice").hasSize(catalogue.size());
  }

  @Test
  void everyNameInTheCatalogueIsRegisteredSomewhere() throws Exception {
    String code = String.join("\n", SourceTree.allMainSources().stream()
      .filter(s -> !s.path().endsWith("MetricNames.java"))
      .flatMap(s -> s.codeLines().stream()).toList());
    for (String field : catalogue().keySet()) {
      assertThat(code).as("MetricNames.%s is used by some main source", field).contains("MetricNames." + field);
    }
  }

  @Test
  void noSourceNamesAMetricWithALiteral() {
    List<String> offenders = new ArrayList<>();
    for (Source s : SourceTree.allMainSources()) {
      if (s.path().endsWith("platform/metrics/MetricNames.java")) {
        continue;
      }
      List<String> lines = s.codeLines();
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (LITERAL_METER.matcher(line).find() || METRIC_LITERAL.matcher(line).find()) {
          offenders.add(s.relative() + ":" + (i + 1) + ": " + line.trim());
        }
      }
    }
    assertThat(offenders).as("metric names outside MetricNames (add a constant there and use it)").isEmpty();
  }

  @Test
  void theScanCatchesALiteralName() {
    assertThat(LITERAL_METER.matcher("registry.counter(\"conclave_x_y\", \"reason\", r)").find()).isTrue();
    assertThat(LITERAL_METER.matcher("Counter.builder(\"jobs\").register(registry)").find()).isTrue();
    assertThat(LITERAL_METER.matcher("registry.counter(MetricNames.BRIDGE_WITHHELD)").find()).isFalse();
    assertThat(METRIC_LITERAL.matcher("String N = \"conclave_packs_calls\";").find()).isTrue();
    assertThat(METRIC_LITERAL.matcher("String A = \"conclave.events.swarm\";").find()).isFalse();
  }

  static Map<String, String> catalogue() throws IllegalAccessException {
    Map<String, String> names = new TreeMap<>();
    for (Field f : MetricNames.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        names.put(f.getName(), (String) f.get(null));
      }
    }
    return names;
  }
}
