package dev.conclave.agentruntime.swarm;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files a tool call writes, read from its name and input: the editing tools that name their file
 * (Claude Code's Write, Edit, MultiEdit, NotebookEdit; the common {@code write_file},
 * {@code edit_file}, {@code create_file}, {@code delete_file}) and patches ({@code apply_patch}: Codex's
 * file changes, or patch text with {@code *** Add/Update/Delete File:} lines). A shell command's
 * writes cannot be told from its text, so it names none. Paths are given as the working directory
 * sees them: relative, normalized, with {@code /} (a path outside it stays absolute), so that two
 * agents working copies of one repository name a file alike.
 */
final class WritePaths {

  private static final Set<String> FILE_TOOLS = Set.of("write", "edit", "multiedit", "notebookedit", "write_file", "edit_file",
    "create_file", "delete_file", "str_replace_based_edit_tool");
  private static final Set<String> PATCH_TOOLS = Set.of("apply_patch", "patch");
  private static final List<String> PATH_KEYS = List.of("file_path", "path", "notebook_path", "filePath", "file");
  private static final Pattern PATCH_LINE = Pattern.compile("(?m)^\\*\\*\\* (?:Add|Update|Delete) File: (.+?)\\s*$|^\\*\\*\\* Move to: (.+?)\\s*$");

  private WritePaths() {
  }

  /** Whether {@code tool} is one whose writes are known from its input. */
  static boolean writes(String tool) {
    String t = simple(tool);
    return FILE_TOOLS.contains(t) || PATCH_TOOLS.contains(t);
  }

  /** The files {@code tool} writes with {@code inputJson}, as the working directory names them; empty for other tools. */
  static List<String> of(String tool, String inputJson, Path workdir) {
    String t = simple(tool);
    if (!writes(tool)) {
      return List.of();
    }
    Object input;
    try {
      input = Json.decodeValue(inputJson == null || inputJson.isBlank() ? "{}" : inputJson);
    } catch (DecodeException e) {
      input = inputJson;
    }
    Set<String> raw = new LinkedHashSet<>();
    if (input instanceof JsonObject o) {
      for (String key : PATH_KEYS) {
        if (o.getValue(key) instanceof String s && !s.isBlank()) {
          raw.add(s.strip());
          break;
        }
      }
      if (o.getValue("changes") instanceof JsonArray changes) {
        for (Object c : changes) {
          if (c instanceof JsonObject change && change.getValue("path") instanceof String p) {
            raw.add(p);
          }
        }
      }
    }
    if (PATCH_TOOLS.contains(t) || raw.isEmpty()) {
      patchPaths(input, raw);
    }
    List<String> out = new ArrayList<>();
    for (String p : raw) {
      String named = name(p, workdir);
      if (named != null && !out.contains(named)) {
        out.add(named);
      }
    }
    return out;
  }

  /** {@code raw} as the working directory names it, or null when it is no path. */
  static String name(String raw, Path workdir) {
    try {
      Path root = workdir.toAbsolutePath().normalize();
      Path p = root.resolve(raw).normalize();
      if (!p.startsWith(root) || p.equals(root)) {
        return p.equals(root) ? null : p.toString();
      }
      return root.relativize(p).toString().replace(java.io.File.separatorChar, '/');
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static void patchPaths(Object input, Set<String> out) {
    if (input instanceof String s) {
      Matcher m = PATCH_LINE.matcher(s);
      while (m.find()) {
        out.add(m.group(1) != null ? m.group(1) : m.group(2));
      }
    } else if (input instanceof JsonObject o) {
      o.forEach(e -> patchPaths(e.getValue(), out));
    } else if (input instanceof JsonArray a) {
      a.forEach(v -> patchPaths(v, out));
    }
  }

  /** A tool name without an MCP server prefix ({@code mcp__files__write_file}, {@code files.write_file}), lower case. */
  private static String simple(String tool) {
    String t = tool == null ? "" : tool;
    int underscores = t.lastIndexOf("__");
    int dot = t.lastIndexOf('.');
    if (underscores > dot) {
      t = t.substring(underscores + 2);
    } else if (dot >= 0) {
      t = t.substring(dot + 1);
    }
    return t.toLowerCase(Locale.ROOT);
  }
}
