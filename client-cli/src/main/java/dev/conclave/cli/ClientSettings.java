package dev.conclave.cli;

import dev.conclave.platform.config.NodeSettings;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of the client commands ({@code session}, {@code send}, {@code agents} …), declared once
 * (listed through ServiceLoader; documented in the README's configuration table), and their values in
 * one environment ({@link #from}): every client command reads its environment through this type. Each
 * overrides the current context (docs/cli.md) and is overridden by its flag. Without either, the
 * commands read the local node's own {@code CONCLAVE_HTTP_PORT}, TLS settings and
 * {@code CONCLAVE_DATA_DIR} ({@code NodeSettings}), as the node they talk to runs with them.
 *
 * <p>A value is parsed when it is asked for, not in {@link #from}: a command told {@code --url} never
 * reads the local node's port, so a wrong {@code CONCLAVE_HTTP_PORT} cannot stop it.
 */
public final class ClientSettings {

  public static final Setting<URI> URL = Setting.define("CONCLAVE_URL", (variable, text) -> Targets.parseUrl(text))
    .readBy(Reader.CLI).describedAs("the node's HTTP base URL the client commands (`./conclave send`, `agents` …, docs/cli.md) "
      + "talk to when `--url` is not given; overrides the context's")
    .noDefault("the context's, else `http://127.0.0.1:$CONCLAVE_HTTP_PORT`");
  public static final Setting<String> TOKEN = Setting.define("CONCLAVE_TOKEN", Parsers.TEXT)
    .readBy(Reader.CLI).describedAs("the token the client commands (`./conclave session`, `send` …) send when `--token-file` "
      + "is not given; overrides the context's")
    .noDefault("the context's token file, else `$CONCLAVE_DATA_DIR/admin.token`");
  public static final Setting<Path> CA_FILE = Setting.define("CONCLAVE_TLS_CA_FILE", Parsers.PATH)
    .readBy(Reader.CLI).describedAs("PEM file of the CA certificates the client commands (`./conclave session`, `send` …) "
      + "trust for `https://` URLs, when `--ca-file` is not given; overrides the context's")
    .noDefault("the context's, else the system's trust store");

  private final Map<String, String> env;

  private ClientSettings(Map<String, String> env) {
    this.env = env;
  }

  /** The client settings of {@code env} (the process environment, or a test's). */
  public static ClientSettings from(Map<String, String> env) {
    return new ClientSettings(Map.copyOf(env));
  }

  /** {@code CONCLAVE_URL}, when set; a value that is no http(s) URL is a usage error. */
  public Optional<URI> url() {
    return URL.find(env);
  }

  /** {@code CONCLAVE_TOKEN}, when set. */
  public Optional<String> token() {
    return TOKEN.find(env);
  }

  /** {@code CONCLAVE_TLS_CA_FILE}, when set. */
  public Optional<Path> caFile() {
    return CA_FILE.find(env);
  }

  /**
   * The local node's HTTP URL, read from the same environment the node runs with: {@code https} on
   * {@code localhost} (the name a certificate carries) when its TLS is on, else plain HTTP on 127.0.0.1.
   */
  public URI localNodeUrl() {
    int port = NodeSettings.HTTP_PORT.get(env);
    boolean tls = NodeSettings.TLS.find(env).orElseGet(() -> NodeSettings.TLS_CERT_FILE.find(env).isPresent());
    return URI.create(tls ? "https://localhost:" + port : "http://127.0.0.1:" + port);
  }

  /** The local node's admin token file, {@code $CONCLAVE_DATA_DIR/admin.token}. */
  public Path localAdminTokenFile() {
    return NodeSettings.DATA_DIR.get(env).resolve("admin.token");
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(ClientSettings.class);
    }
  }
}
