package dev.conclave.node.session;

import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

/**
 * The settings of the {@code conclave-node session} command, declared once (listed through
 * ServiceLoader; documented in the README's configuration table). It also reads the node's
 * {@code CONCLAVE_HTTP_PORT} and {@code CONCLAVE_DATA_DIR} ({@code NodeSettings}).
 */
public final class SessionSettings implements SettingCatalogue {

  public static final Setting<String> TOKEN = Setting.define("CONCLAVE_TOKEN", Parsers.TEXT)
    .readBy(Reader.CLI).describedAs("the token `conclave-node session` sends when `--token-file` is not given")
    .noDefault("`$CONCLAVE_DATA_DIR/admin.token`");
  public static final Setting<java.nio.file.Path> CA_FILE = Setting.define("CONCLAVE_TLS_CA_FILE", Parsers.PATH)
    .readBy(Reader.CLI).describedAs("PEM file of the CA certificates `conclave-node session` trusts for `https://` URLs, when "
      + "`--ca-file` is not given")
    .noDefault("the system's trust store");
}
