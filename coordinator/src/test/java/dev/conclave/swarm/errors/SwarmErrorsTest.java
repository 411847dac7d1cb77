package dev.conclave.swarm.errors;

import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every error code the swarm can answer with is defined once, known to the Java side and documented. */
class SwarmErrorsTest {

  private static final Path MIGRATIONS = Path.of("src", "main", "resources", "db", "swarm");

  private static Set<String> codesInSql() throws IOException {
    Pattern err = Pattern.compile("_err\\('([a-z_]+)'");
    Set<String> codes = new TreeSet<>();
    try (Stream<Path> files = Files.list(MIGRATIONS)) {
      for (Path file : files.toList()) {
        Matcher m = err.matcher(Files.readString(file));
        while (m.find()) {
          codes.add(m.group(1));
        }
      }
    }
    return codes;
  }

  @Test
  void everyCodeTheDatabaseReturnsIsKnown() throws IOException {
    Set<String> sql = codesInSql();
    assertThat(sql).contains("agent_not_registered", "task_not_found", "task_already_claimed", "invalid_operation");
    assertThat(SwarmErrors.codes()).containsAll(sql);
  }

  @Test
  void everyCodeIsDocumented() throws IOException {
    String docs = Files.readString(Path.of("..", "docs", "swarm.md"));
    for (String code : SwarmErrors.codes()) {
      assertThat(docs).as("docs/swarm.md documents " + code).contains("| `" + code + "` |");
    }
  }

  @Test
  void databaseErrorsKeepTheirKindAndExtensions() {
    SwarmProblem problem = SwarmErrors.fromDatabase(new JsonObject().put("code", "lease_not_owned").put("kind", "forbidden")
      .put("message", "the lease on f belongs to agent b").put("heldBy", "b"));

    assertThat(problem.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
    assertThat(problem.code()).isEqualTo("lease_not_owned");
    assertThat(problem.detail()).isEqualTo("the lease on f belongs to agent b");
    assertThat(problem.extensions()).isEqualTo(new JsonObject().put("heldBy", "b"));
    assertThat(SwarmErrors.fromDatabase(new JsonObject().put("code", "invalid_operation").put("kind", "conflict")
      .put("message", "x")).kind()).isEqualTo(ErrorKind.CONFLICT);
  }

  @Test
  void raisedSwarmErrorsAreRecognized() {
    PgException raised = new PgException("task_not_found: no task with id t", "ERROR", "SW404",
      new JsonObject().put("code", "task_not_found").put("kind", "not_found").put("message", "no task with id t").encode());
    assertThat(SwarmErrors.fromSql(raised)).isInstanceOfSatisfying(SwarmProblem.class, p -> {
      assertThat(p.kind()).isEqualTo(ErrorKind.NOT_FOUND);
      assertThat(p.code()).isEqualTo("task_not_found");
    });
    PgException other = new PgException("duplicate key", "ERROR", "23505", "detail");
    assertThat(SwarmErrors.fromSql(other)).isSameAs(other);
  }
}
