package dev.conclave.cli;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code tasks create --from-file}: JSON lines, one task object per line, numbered from 1 as an
 * editor numbers them. Blank lines and lines starting with {@code #} are skipped; a line that is not
 * a JSON object is kept with why, so the command reports it by its number and goes on.
 */
public final class TaskLines {

  /** One task line: its number and either the task or why it is not one. */
  public record Line(int number, Optional<JsonObject> task, String problem) {
  }

  private TaskLines() {
  }

  public static List<Line> read(BufferedReader in) {
    List<Line> lines = new ArrayList<>();
    try {
      String text;
      int number = 0;
      while ((text = in.readLine()) != null) {
        number++;
        String t = text.strip();
        if (t.isEmpty() || t.startsWith("#")) {
          continue;
        }
        lines.add(parse(number, t));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }

  static Line parse(int number, String text) {
    if (!text.startsWith("{")) {
      return new Line(number, Optional.empty(), "not a JSON object (one task per line)");
    }
    try {
      return new Line(number, Optional.of(new JsonObject(text)), null);
    } catch (DecodeException | ClassCastException e) {
      String why = e.getMessage() == null ? "" : e.getMessage().replaceAll("[\\r\\n]+", " ");
      return new Line(number, Optional.empty(), "not valid JSON" + (why.isBlank() ? "" : " (" + brief(why) + ")"));
    }
  }

  private static String brief(String text) {
    return text.length() > 120 ? text.substring(0, 117) + "..." : text;
  }
}
