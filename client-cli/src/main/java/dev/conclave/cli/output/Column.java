package dev.conclave.cli.output;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.function.Function;

/** One column of a table: its heading and how a row's JSON gives its cell. */
public record Column(String heading, Function<JsonObject, Object> cell) {

  /** A column showing one field of the row ({@code -} when it is absent). */
  public static Column field(String heading, String field) {
    return new Column(heading, row -> row.getValue(field));
  }

  /** The cell's text: arrays joined with commas, nothing as {@code -}, line breaks as spaces. */
  String text(JsonObject row) {
    Object value = cell.apply(row);
    if (value == null) {
      return "-";
    }
    if (value instanceof JsonArray array) {
      return array.isEmpty() ? "-" : String.join(",", array.stream().map(String::valueOf).toList());
    }
    String text = String.valueOf(value).replaceAll("[\\r\\n\\t]+", " ");
    return text.isEmpty() ? "-" : text;
  }
}
