package dev.conclave.platform.db.sql;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code .sql} resource of named statements, the one way new SQL is written (STYLE: River's
 * {@code -- name: JobGetAvailable}). Each statement starts with a line {@code -- name: StatementName}
 * and runs to the next such line; parameters are {@code :snake_name}, written where PostgreSQL would
 * take {@code $n}. Casts ({@code ::int}), string literals, quoted identifiers, dollar-quoted bodies
 * and comments are left as they are. The file sits beside the class that owns it
 * ({@code SqlFile.of(TokenStore.class, "tokens.sql")} reads {@code dev/conclave/platform/auth/tokens.sql}),
 * and is read once, when that class loads: a malformed file fails at start-up, not at first use.
 */
public final class SqlFile {

  private static final Pattern NAME = Pattern.compile("^--\\s*name:\\s*([A-Za-z][A-Za-z0-9_]*)\\s*$");

  private final String resource;
  private final Map<String, NamedStatement> statements;

  private SqlFile(String resource, Map<String, NamedStatement> statements) {
    this.resource = resource;
    this.statements = Collections.unmodifiableMap(statements);
  }

  /** Reads {@code file} from {@code owner}'s package. */
  public static SqlFile of(Class<?> owner, String file) {
    String resource = owner.getPackageName().replace('.', '/') + "/" + file;
    try (InputStream in = owner.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("SQL resource not found: " + resource);
      }
      return parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("SQL resource unreadable: " + resource, e);
    }
  }

  /** Parses a file's text; {@code resource} only names it in errors. */
  public static SqlFile parse(String resource, String text) {
    Map<String, NamedStatement> out = new LinkedHashMap<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      Matcher m = NAME.matcher(line.strip());
      if (m.matches()) {
        add(resource, out, name, body);
        name = m.group(1);
        body.setLength(0);
      } else if (name != null) {
        body.append(line).append('\n');
      } else if (!line.isBlank() && !line.strip().startsWith("--")) {
        throw new IllegalStateException(resource + ": SQL before the first '-- name:' line");
      }
    }
    add(resource, out, name, body);
    return new SqlFile(resource, out);
  }

  private static void add(String resource, Map<String, NamedStatement> out, String name, StringBuilder body) {
    if (name == null) {
      return;
    }
    String sql = body.toString().strip();
    while (sql.endsWith(";")) {
      sql = sql.substring(0, sql.length() - 1).strip();
    }
    if (sql.isEmpty()) {
      throw new IllegalStateException(resource + ": statement " + name + " is empty");
    }
    if (out.containsKey(name)) {
      throw new IllegalStateException(resource + ": statement " + name + " is named twice");
    }
    out.put(name, positional(resource, name, sql));
  }

  /** Replaces {@code :name} with {@code $n}, one number per distinct name, skipping literals and comments. */
  static NamedStatement positional(String resource, String name, String sql) {
    List<String> parameters = new ArrayList<>();
    StringBuilder out = new StringBuilder(sql.length());
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        int end = sql.indexOf(c, i + 1);
        while (end > 0 && end + 1 < n && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        if (end < 0) {
          throw new IllegalStateException(resource + ": statement " + name + " has an unterminated " + (c == '\'' ? "string" : "identifier"));
        }
        out.append(sql, i, end + 1);
        i = end + 1;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        end = end < 0 ? n : end;
        out.append(sql, i, end);
        i = end;
      } else if (c == '$' && i + 1 < n && (sql.charAt(i + 1) == '$' || Character.isLetter(sql.charAt(i + 1)))) {
        int close = sql.indexOf('$', i + 1);
        String tag = close < 0 ? null : sql.substring(i, close + 1);
        if (tag == null || !tag.matches("\\$[A-Za-z_0-9]*\\$")) {
          out.append(c);
          i++;
          continue;
        }
        int end = sql.indexOf(tag, close + 1);
        if (end < 0) {
          throw new IllegalStateException(resource + ": statement " + name + " has an unterminated " + tag + " body");
        }
        out.append(sql, i, end + tag.length());
        i = end + tag.length();
      } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
        out.append("::");
        i += 2;
      } else if (c == ':' && i + 1 < n && (Character.isLetter(sql.charAt(i + 1)) || sql.charAt(i + 1) == '_')) {
        int end = i + 1;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        String parameter = sql.substring(i + 1, end);
        int index = parameters.indexOf(parameter);
        if (index < 0) {
          parameters.add(parameter);
          index = parameters.size() - 1;
        }
        out.append('$').append(index + 1);
        i = end;
      } else if (c == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
        throw new IllegalStateException(resource + ": statement " + name + " uses a positional parameter; name it (:name)");
      } else {
        out.append(c);
        i++;
      }
    }
    return new NamedStatement(name, out.toString(), parameters);
  }

  /** The statement called {@code name}; fails naming the file when it has none. */
  public NamedStatement get(String name) {
    NamedStatement s = statements.get(name);
    if (s == null) {
      throw new IllegalArgumentException(resource + " has no statement " + name + " (it has " + statements.keySet() + ")");
    }
    return s;
  }

  public Map<String, NamedStatement> statements() {
    return statements;
  }
}
