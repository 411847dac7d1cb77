package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.ClientSettings;
import dev.conclave.cli.ContextStore;
import dev.conclave.cli.Target;
import dev.conclave.cli.Targets;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/** {@code --url}, {@code --token-file}, {@code --ca-file} and {@code --context}, on every client command. */
public final class TargetOptions {

  @Option(names = "--url", description = "The node's HTTP base URL (default: $CONCLAVE_URL, else the context's, "
    + "else http://127.0.0.1:$CONCLAVE_HTTP_PORT, or :8080).")
  URI url;

  @Option(names = "--token-file", description = "File holding the bearer token (default: $CONCLAVE_TOKEN, else the "
    + "context's token file, else $CONCLAVE_DATA_DIR/admin.token).")
  Path tokenFile;

  @Option(names = "--ca-file", description = "PEM file of the CA certificates trusted for https:// URLs "
    + "(default: $CONCLAVE_TLS_CA_FILE, else the context's, else the system's trust store).")
  Path caFile;

  @Option(names = "--context", description = "Use this context instead of the current one (conclave context list).")
  String context;

  Target target() {
    return Targets.resolve(new Targets.Flags(url == null ? null : List.of(Targets.parseUrl(url.toString())), tokenFile, caFile, context),
      ClientSettings.from(System.getenv()), ContextStore.forUser(System.getenv()));
  }

  Api api() {
    return new Api(target());
  }
}
