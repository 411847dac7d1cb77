package dev.conclave.node.access;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.access.RouteTable.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.conclave.node.access.MatrixFixture.ALLOWED;
import static dev.conclave.node.access.MatrixFixture.DENIED;
import static dev.conclave.node.access.MatrixFixture.UNAUTHENTICATED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every route a node serves (all three roles), called by every kind of caller, against what the
 * route table says: its audience decides who gets past the edge, its probe who of those may act on
 * the thing it names. A route without a probe fails the test, so a new route cannot skip this.
 * Anything else, a 5xx above all, is reported as it came.
 */
class AuthorizationMatrixTest {

  private static final String TABLE_BEGIN = "<!-- route table: generated from the RouteTable, checked by AuthorizationMatrixTest -->";
  private static final String TABLE_END = "<!-- end of route table -->";

  private static MatrixFixture f;
  private static Map<String, Probes.Probe> probes;

  @BeforeAll
  static void start() {
    f = new MatrixFixture();
    probes = Probes.all();
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void everyRouteHasAProbeAndEveryProbeARoute() {
    Set<String> declared = new TreeSet<>(f.node.runtime().context().edge().routes().all().stream().map(Route::key).toList());
    assertThat(new TreeSet<>(probes.keySet())).as("routes in the RouteTable vs. probes here").isEqualTo(declared);
  }

  /** docs/security.md renders the route table; this keeps the rendering true. */
  @Test
  void theSecurityDocListsEveryRouteAsDeclared() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "security.md"));
    int begin = doc.indexOf(TABLE_BEGIN);
    int end = doc.indexOf(TABLE_END);
    assertThat(begin).as("docs/security.md has the route table markers").isNotNegative();
    List<String> documented = doc.substring(begin + TABLE_BEGIN.length(), end).lines().filter(l -> l.startsWith("| ") && !l.startsWith("| surface")
      && !l.startsWith("|---")).toList();
    List<String> declared = f.node.runtime().context().edge().routes().all().stream().map(AuthorizationMatrixTest::row).toList();
    assertThat(documented).as("the route table in docs/security.md; it should read:\n" + String.join("\n", declared) + "\n")
      .isEqualTo(declared);
  }

  static String row(Route r) {
    String what = r.surface().equals("grpc") ? r.path() : r.method() + " " + r.path();
    return "| " + r.surface() + " | `" + what + "` | " + r.audience().description() + " | " + r.resource().description() + " |";
  }

  @Test
  void everyCallerGetsWhatTheRouteTableSays() {
    List<String> wrong = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    for (Route route : f.node.runtime().context().edge().routes().all()) {
      Probes.Probe probe = probes.get(route.key());
      if (probe == null) {
        continue; // reported by the completeness test
      }
      if (route.resource() == Resource.NONE && !probe.allowed().containsAll(members(route.audience()))) {
        wrong.add(route.key() + ": declared Resource.NONE but its probe refuses some of its audience");
      }
      table.append(String.format("%-62s", route.key()));
      for (Who who : Who.values()) {
        String expected = expected(route, probe, who);
        String actual;
        try {
          actual = probe.run().apply(f, who);
        } catch (Exception | AssertionError e) { // await throws a failed call's own exception, checked or not
          actual = "probe failed: " + e.getMessage();
        }
        table.append(' ').append(abbreviate(actual));
        if (!expected.equals(actual)) {
          wrong.add(route.key() + " as " + who + ": expected " + expected + ", got " + actual);
        }
      }
      table.append('\n');
    }
    System.out.println("authorization matrix (" + String.join(" ", List.of(Who.values()).stream().map(Enum::name).toList()) + ")\n" + table);
    assertThat(wrong).as("routes whose callers got something other than the route table says").isEmpty();
  }

  private static String expected(Route route, Probes.Probe probe, Who who) {
    if (who == Who.NOBODY || who == Who.BRIDGE_TOKEN) {
      return UNAUTHENTICATED;
    }
    // an MCP token is good only at the MCP endpoint, and only an MCP token is good there
    if ((who == Who.MCP_TOKEN) != (route.audience() == Audience.MCP_TOKENS)) {
      return UNAUTHENTICATED;
    }
    if (!members(route.audience()).contains(who)) {
      return DENIED;
    }
    if (probe.overrides().containsKey(who)) {
      return probe.overrides().get(who);
    }
    return probe.allowed().contains(who) ? ALLOWED : probe.refusal();
  }

  /** Who of the matrix's callers an audience admits at the edge. */
  private static Set<Who> members(Audience audience) {
    return switch (audience) {
      case ANY_PRINCIPAL -> Who.API_CALLERS;
      case MEMBERS -> Who.MEMBERS;
      case ADMINS -> Who.ADMIN_ONLY;
      case AGENTS -> EnumSet.of(Who.AGENT, Who.ADMIN);
      case PACKS -> EnumSet.of(Who.PACK);
      case MCP_TOKENS -> EnumSet.of(Who.MCP_TOKEN);
    };
  }

  private static String abbreviate(String outcome) {
    return switch (outcome) {
      case ALLOWED -> "ok  ";
      case DENIED -> "403 ";
      case UNAUTHENTICATED -> "401 ";
      case MatrixFixture.HIDDEN -> "404 ";
      default -> "??? ";
    };
  }
}
