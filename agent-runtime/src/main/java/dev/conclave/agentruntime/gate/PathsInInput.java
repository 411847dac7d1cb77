package dev.conclave.agentruntime.gate;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the paths a tool call names and tells whether one leaves the working directory. A string
 * value counts as a path when it starts with {@code /}, {@code ~} or {@code ..}, or when its key
 * says so ({@code path}, {@code file}, {@code dir}, {@code cwd}); inside a command line, every
 * word starting with {@code /}, {@code ~} or {@code ../} counts.
 */
final class PathsInInput {

  private static final Pattern WORD_PATH = Pattern.compile("(?<=^|[\\s='\"])((?:/|~|\\.\\./)[^\\s'\";|&<>]*)");

  private PathsInInput() {
  }

  static boolean anyOutside(String inputJson, Path workdir) {
    Path root = workdir.toAbsolutePath().normalize();
    for (String p : candidates(inputJson)) {
      if (outside(p, root)) {
        return true;
      }
    }
    return false;
  }

  static List<String> candidates(String inputJson) {
    List<String> out = new ArrayList<>();
    Object parsed;
    try {
      parsed = Json.decodeValue(inputJson == null || inputJson.isBlank() ? "{}" : inputJson);
    } catch (DecodeException e) {
      collectWords(inputJson, out);
      return out;
    }
    collect(null, parsed, out);
    return out;
  }

  private static void collect(String key, Object value, List<String> out) {
    if (value instanceof JsonObject o) {
      o.forEach(e -> collect(e.getKey(), e.getValue(), out));
    } else if (value instanceof JsonArray a) {
      a.forEach(v -> collect(key, v, out));
    } else if (value instanceof String s) {
      String k = key == null ? "" : key.toLowerCase(java.util.Locale.ROOT);
      boolean pathKey = k.contains("path") || k.contains("file") || k.endsWith("dir") || k.equals("cwd") || k.equals("directory");
      if (pathKey && !s.isBlank() && !s.contains("\n")) {
        out.add(s.strip());
      } else {
        collectWords(s, out);
      }
    }
  }

  private static void collectWords(String text, List<String> out) {
    Matcher m = WORD_PATH.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
  }

  private static boolean outside(String raw, Path root) {
    String p = raw;
    if (p.startsWith("~")) {
      p = System.getProperty("user.home", "/") + p.substring(1);
    }
    try {
      Path resolved = root.resolve(p).normalize();
      return !resolved.startsWith(root);
    } catch (InvalidPathException e) {
      return false;
    }
  }
}
