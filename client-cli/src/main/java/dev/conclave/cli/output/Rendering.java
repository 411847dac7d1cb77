package dev.conclave.cli.output;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints what a command got: as a table of rows for people, or as the API's own document in JSON or
 * YAML for programs (so {@code -o json}'s field names are the HTTP API's, and stay as stable as it).
 */
public final class Rendering {

  private Rendering() {
  }

  /**
   * Prints {@code document} in {@code format}; for a table, its {@code rows} under {@code columns}
   * (a header line, then one line per row, columns padded to their widest cell).
   */
  public static void print(PrintStream out, Format format, Object document, List<JsonObject> rows, List<Column> columns) {
    switch (format) {
      case json -> out.println(json(document));
      case yaml -> out.print(yaml(document));
      case table -> out.print(table(rows, columns));
    }
    out.flush();
  }

  public static String json(Object document) {
    if (document instanceof JsonObject o) {
      return o.encodePrettily();
    }
    if (document instanceof JsonArray a) {
      return a.encodePrettily();
    }
    return String.valueOf(document);
  }

  public static String yaml(Object document) {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setIndicatorIndent(0);
    options.setSplitLines(false);
    return new Yaml(options).dump(plain(document));
  }

  public static String table(List<JsonObject> rows, List<Column> columns) {
    List<String[]> lines = new ArrayList<>();
    lines.add(columns.stream().map(Column::heading).toArray(String[]::new));
    for (JsonObject row : rows) {
      lines.add(columns.stream().map(c -> c.text(row)).toArray(String[]::new));
    }
    int[] widths = new int[columns.size()];
    for (String[] line : lines) {
      for (int i = 0; i < line.length; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] line : lines) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < line.length; i++) {
        text.append(line[i]);
        if (i < line.length - 1) {
          text.append(" ".repeat(widths[i] - line[i].length() + 2));
        }
      }
      out.append(text.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** Vert.x JSON as plain maps and lists, in the document's order, for the YAML writer. */
  static Object plain(Object value) {
    if (value instanceof JsonObject o) {
      Map<String, Object> map = new LinkedHashMap<>();
      o.forEach(e -> map.put(e.getKey(), plain(e.getValue())));
      return map;
    }
    if (value instanceof JsonArray a) {
      List<Object> list = new ArrayList<>();
      a.forEach(v -> list.add(plain(v)));
      return list;
    }
    if (value instanceof Map<?, ?> m) {
      return plain(new JsonObject(new LinkedHashMap<>(castMap(m))));
    }
    if (value instanceof List<?> l) {
      return plain(new JsonArray(new ArrayList<>(l)));
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }
}
