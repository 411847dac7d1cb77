package dev.conclave.platform.testing;

import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's configuration table and the declared settings, for the tests that keep them equal
 * (platform's {@code ReadmeConfigTableTest}, the node's {@code AllSettingsTest}).
 */
public final class ConfigTable {

  /** The file, from the repository's root, whose configuration table this class reads. */
  public static final String README = "README.md";

  private ConfigTable() {
  }

  /** One row: {@code | `NAME` | description | default |}. */
  public record Row(String name, String description, String documentedDefault) {
  }

  /**
   * Every setting of every {@link SettingCatalogue} ServiceLoader finds that the README's table
   * documents: all but a program's that documents its own (the agent program's).
   */
  public static List<Setting<?>> declared() {
    return declared(catalogue -> catalogue.documentedIn().equals(README));
  }

  /** Every setting of every {@link SettingCatalogue} ServiceLoader finds, wherever it is documented. */
  public static List<Setting<?>> declaredAnywhere() {
    return declared(catalogue -> true);
  }

  private static List<Setting<?>> declared(Predicate<SettingCatalogue> which) {
    List<Setting<?>> settings = new ArrayList<>();
    for (SettingCatalogue catalogue : ServiceLoader.load(SettingCatalogue.class)) {
      if (which.test(catalogue)) {
        settings.addAll(catalogue.settings());
      }
    }
    return settings;
  }

  /** The README's configuration table, by variable. */
  public static Map<String, Row> readmeTable() {
    String readme;
    try {
      readme = Files.readString(Path.of("..", README));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Row> rows = new LinkedHashMap<>();
    for (String line : readme.split("\n")) {
      if (line.startsWith("| `CONCLAVE_")) {
        String[] cells = line.substring(2, line.length() - 2).split(" \\| ", -1);
        assertThat(cells).as("three cells: %s", line).hasSize(3);
        String name = cells[0].replace("`", "");
        assertThat(rows).as("one row for %s", name).doesNotContainKey(name);
        rows.put(name, new Row(name, cells[1], cells[2]));
      }
    }
    return rows;
  }

  /** The row {@code setting} has in the README's table, as it must read. */
  public static Row rowOf(Setting<?> setting) {
    return new Row(setting.name(), setting.description(), setting.documentedDefault());
  }

  public static void assertDocumented(List<Setting<?>> settings, Map<String, Row> table) {
    for (Setting<?> s : settings) {
      assertThat(table).as("README documents %s", s.name()).containsKey(s.name());
      assertThat(table.get(s.name())).as("README's row for %s (declared in code; regenerate the row from the declaration)", s.name())
        .isEqualTo(rowOf(s));
    }
  }
}
