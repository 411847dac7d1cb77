package dev.conclave.cli;

import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

import java.net.URI;
import java.nio.file.Path;

/**
 * The settings of the client commands ({@code session}, {@code send}, {@code agents} …), declared once
 * (listed through ServiceLoader; documented in the README's configuration table). Each overrides the
 * current context (docs/cli.md) and is overridden by its flag. Without either, the commands read the
 * local node's own {@code CONCLAVE_HTTP_PORT}, TLS settings and {@code CONCLAVE_DATA_DIR}
 * ({@code NodeSettings}), as the node they talk to runs with them.
 */
public final class ClientSettings implements SettingCatalogue {

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
}
