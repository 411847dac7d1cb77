package dev.conclave.platform.arch;

import dev.conclave.platform.arch.SourceTree.Source;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The setting type (module {@code settings}) uses the JDK only: the agent program (agent-runtime)
 * declares its settings through it, and must not get the server stack (Vert.x, PostgreSQL,
 * Hazelcast) with it. Its pom has no dependencies; this catches a use of what the parent pom lends
 * every module at compile time (Vert.x's codegen annotations).
 */
class SettingsJdkOnlyTest {

  /** A qualified type name, {@code a.b.Type}, in an import or in code. */
  private static final Pattern QUALIFIED = Pattern.compile("\\b([a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)\\.[A-Z]");

  @Test
  void theSettingsModuleUsesOnlyTheJdk() {
    List<Source> sources = SourceTree.mainSources("settings");
    assertThat(sources).as("the settings module's sources").isNotEmpty();
    List<String> offenders = new ArrayList<>();
    for (Source s : sources) {
      for (String line : s.codeLines()) {
        Matcher m = QUALIFIED.matcher(line);
        while (!line.trim().startsWith("package ") && m.find()) {
          String pkg = m.group(1);
          if (!pkg.equals("java") && !pkg.startsWith("java.") && !pkg.startsWith("dev.conclave.settings")) {
            offenders.add(s.relative() + ": " + line.trim());
          }
        }
      }
    }
    assertThat(offenders).as("types from beyond the JDK in the settings module").isEmpty();
  }

  @Test
  void theCheckSeesAForeignType() {
    assertThat(QUALIFIED.matcher("import io.vertx.core.json.JsonObject;").find()).isTrue();
    assertThat(QUALIFIED.matcher("new io.vertx.core.json.JsonObject(text)").find()).isTrue();
  }
}
