package dev.conclave.node.docs;

import dev.conclave.platform.testing.ConfigTable;
import dev.conclave.settings.Setting;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One setting type (issue 16), checked where every module is on the class path: the README's
 * configuration table is exactly the declared settings of all modules (name, description, default),
 * and no source of any module, the agent program's (agent-runtime) included, reads a
 * {@code CONCLAVE_*} variable that is not declared. The agent program's settings are documented in
 * agent-runtime/README.md instead, which its {@code SettingsDocTest} keeps equal to them.
 */
class AllSettingsTest {

  /** Variables code may read that are not Conclave's settings. */
  static final Set<String> SYSTEM_VARIABLES = Set.of("HOSTNAME", "PATH", "HOME", "USER");

  private static final Pattern CONCLAVE_NAME = Pattern.compile("\"(CONCLAVE_[A-Z0-9_]+)\"");
  private static final Pattern GETENV = Pattern.compile("getenv\\(\\s*\"([A-Za-z0-9_]+)\"");

  @Test
  void theReadmeTableIsExactlyEveryModulesSettings() {
    List<Setting<?>> declared = ConfigTable.declared();
    Map<String, ConfigTable.Row> table = ConfigTable.readmeTable();
    ConfigTable.assertDocumented(declared, table);
    Set<String> names = declared.stream().map(Setting::name).collect(Collectors.toSet());
    assertThat(new TreeSet<>(table.keySet())).as("README rows without a declared setting").isSubsetOf(names);
    List<Setting<?>> everywhere = ConfigTable.declaredAnywhere();
    assertThat(everywhere.stream().map(Setting::name).distinct()).as("no name declared twice, the agent program's included")
      .hasSize(everywhere.size());
    assertThat(everywhere).as("every setting says who reads it and what it means")
      .allSatisfy(s -> assertThat(s.readers()).isNotEmpty())
      .allSatisfy(s -> assertThat(s.description()).isNotBlank());
  }

  @Test
  void everyVariableCodeReadsIsDeclared() {
    Set<String> names = ConfigTable.declaredAnywhere().stream().map(Setting::name).collect(Collectors.toSet());
    List<String> undeclared = new ArrayList<>();
    for (Path file : mainSources()) {
      String code = code(file);
      Set<String> read = new HashSet<>();
      Matcher m = CONCLAVE_NAME.matcher(code);
      while (m.find()) {
        read.add(m.group(1));
      }
      Matcher g = GETENV.matcher(code);
      while (g.find()) {
        read.add(g.group(1));
      }
      read.removeAll(names);
      read.removeAll(SYSTEM_VARIABLES);
      read.forEach(v -> undeclared.add(module(file) + "/" + file.getFileName() + ": " + v));
    }
    assertThat(undeclared).as("variables read or named in code without a Setting declaration").isEmpty();
  }

  @Test
  void theScanCoversTheAgentProgramAndItsSettings() {
    assertThat(mainSources().stream().map(AllSettingsTest::module).distinct())
      .contains("settings", "platform", "gateway", "coordinator", "pack-host", "node", "agent-sdk", "agent-runtime");
    assertThat(ConfigTable.declaredAnywhere()).as("the agent program's catalogue, found like every module's")
      .anySatisfy(s -> assertThat(s.readers()).contains(Setting.Reader.AGENT));
    assertThat(ConfigTable.declared()).as("but not in the README's table")
      .noneSatisfy(s -> assertThat(s.readers()).contains(Setting.Reader.AGENT));
  }

  @Test
  void theScanSeesAnUndeclaredRead() {
    assertThat(GETENV.matcher("System.getenv(\"CONCLAVE_NEW_THING\")").find()).isTrue();
    assertThat(CONCLAVE_NAME.matcher("config.raw(\"CONCLAVE_NEW_THING\")").find()).isTrue();
  }

  private static List<Path> mainSources() {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> modules = Files.list(Path.of(".."))) {
      for (Path module : modules.filter(d -> Files.isDirectory(d.resolve("src/main/java"))).toList()) {
        try (Stream<Path> walk = Files.walk(module.resolve("src/main/java"))) {
          walk.filter(f -> f.toString().endsWith(".java")).forEach(files::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The module a source file belongs to. */
  private static String module(Path file) {
    return Path.of("..").toAbsolutePath().normalize().relativize(file.toAbsolutePath().normalize()).getName(0).toString();
  }

  /** The file without comments: a variable named in a doc comment is not a read. */
  private static String code(Path file) {
    try {
      return Files.readString(file).replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
