package dev.conclave.platform.config;

import dev.conclave.settings.ConfigException;
import io.vertx.pgclient.PgConnectOptions;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A PostgreSQL location in the {@code postgresql://user:pass@host:port/db} form, convertible to
 * what the reactive client and the JDBC driver (Flyway) each need. A server on this machine may
 * also name the directory of its Unix socket, which the reactive client prefers where it can use
 * one ({@link dev.conclave.platform.db.PgPools}): the same server, the same authentication, less work per message than TCP.
 */
public record PgUrl(String host, int port, String database, String user, Optional<String> password, Optional<String> sslMode,
                    Optional<Path> socketDirectory) {

  public PgUrl(String host, int port, String database, String user, Optional<String> password, Optional<String> sslMode) {
    this(host, port, database, user, password, sslMode, Optional.empty());
  }

  public static PgUrl parse(String variable, String text) {
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(variable, "not a URL: " + e.getReason());
    }
    String scheme = uri.getScheme();
    if (!"postgresql".equals(scheme) && !"postgres".equals(scheme)) {
      throw new ConfigException(variable, "must start with postgresql://, got '" + (scheme == null ? "" : scheme + "://") + "'");
    }
    if (uri.getHost() == null || uri.getHost().isBlank()) {
      throw new ConfigException(variable, "names no host");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    String database = path.startsWith("/") ? decode(path.substring(1)) : decode(path);
    if (database.isBlank()) {
      throw new ConfigException(variable, "names no database (postgresql://user:pass@host:port/db)");
    }
    String user = "postgres";
    Optional<String> password = Optional.empty();
    if (uri.getRawUserInfo() != null) {
      String info = uri.getRawUserInfo();
      int colon = info.indexOf(':');
      user = decode(colon < 0 ? info : info.substring(0, colon));
      if (colon >= 0) {
        password = Optional.of(decode(info.substring(colon + 1)));
      }
    }
    Optional<String> sslMode = Optional.empty();
    if (uri.getRawQuery() != null) {
      for (String param : uri.getRawQuery().split("&")) {
        if (param.startsWith("sslmode=")) {
          sslMode = Optional.of(decode(param.substring("sslmode=".length())));
        }
      }
    }
    return new PgUrl(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), database, user, password, sslMode);
  }

  /** The embedded server's superuser on 127.0.0.1. */
  public static PgUrl local(int port, String password) {
    return new PgUrl("127.0.0.1", port, "postgres", "postgres", Optional.of(password), Optional.empty());
  }

  /** The longest statement text kept as a prepared statement on each connection. */
  public static final int PREPARED_SQL_LIMIT = 16_384;

  public PgConnectOptions connectOptions() {
    PgConnectOptions options = new PgConnectOptions()
      .setHost(host)
      .setPort(port)
      .setDatabase(database)
      .setUser(user)
      .setCachePreparedStatements(true)
      // statements longer than the client's default limit (2,048 characters) are not kept prepared:
      // PostgreSQL would parse and plan them at every execution, and the hot ledger statements are longer
      .setPreparedStatementCacheSqlLimit(PREPARED_SQL_LIMIT)
      .setReconnectAttempts(2)
      .setReconnectInterval(500);
    password.ifPresent(options::setPassword);
    sslMode.ifPresent(mode -> options.setSslMode(io.vertx.pgclient.SslMode.of(mode)));
    return options;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database + sslMode.map(m -> "?sslmode=" + m).orElse("");
  }

  /** The URL as users write it, with the password masked. */
  public String redacted() {
    return "postgresql://" + user + password.map(p -> ":***").orElse("") + "@" + host + ":" + port + "/" + database;
  }

  /** The URL as users write it, password included; for printing to the operator who owns it. */
  public String full() {
    return "postgresql://" + user + password.map(p -> ":" + p).orElse("") + "@" + host + ":" + port + "/" + database;
  }

  public PgUrl withDatabase(String otherDatabase) {
    return new PgUrl(host, port, otherDatabase, user, password, sslMode, socketDirectory);
  }

  /** The same server, also listening on a Unix socket in {@code directory}. */
  public PgUrl withSocketDirectory(Path directory) {
    return new PgUrl(host, port, database, user, password, sslMode, Optional.of(directory));
  }

  /** The server's Unix socket file, if it names a socket directory and the socket is there now. */
  public Optional<Path> socketFile() {
    return socketDirectory.map(d -> d.resolve(".s.PGSQL." + port)).filter(java.nio.file.Files::exists);
  }

  private static String decode(String s) {
    // percent-decoding only: a '+' in a password is a plus, not a space
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return redacted();
  }
}
