package dev.conclave.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Decides a client command's {@link Target}, the same way for {@code session} and every other client
 * command: a flag first, then an environment variable ({@link ClientSettings}), then the context
 * ({@code --context}, else the current one), then the local node's documented defaults (its
 * {@code CONCLAVE_HTTP_PORT} and TLS settings, and the admin token in its {@code CONCLAVE_DATA_DIR}).
 */
public final class Targets {

  /** What the command line said; any of it may be null. */
  public record Flags(List<URI> urls, Path tokenFile, Path caFile, String context) {
  }

  private Targets() {
  }

  public static Target resolve(Flags flags, ClientSettings env, ContextStore store) {
    Optional<ContextStore.Context> context = context(flags.context(), store);
    List<URI> urls;
    if (flags.urls() != null && !flags.urls().isEmpty()) {
      urls = flags.urls();
    } else {
      urls = List.of(env.url()
        .or(() -> context.map(c -> parseUrl(c.url())))
        .orElseGet(env::localNodeUrl));
    }
    String token;
    if (flags.tokenFile() != null) {
      token = readToken(flags.tokenFile());
    } else {
      token = env.token().orElseGet(() -> readToken(context.map(c -> Path.of(c.tokenFile()))
        .orElseGet(env::localAdminTokenFile)));
    }
    Optional<Path> ca = Optional.ofNullable(flags.caFile()).or(env::caFile)
      .or(() -> context.flatMap(c -> Optional.ofNullable(c.caFile())).map(Path::of));
    return new Target(urls, token, ca);
  }

  private static Optional<ContextStore.Context> context(String named, ContextStore store) {
    if (named != null) {
      return Optional.of(store.find(named).orElseThrow(() -> CliFailure.usage("no context named " + named
        + " in " + store.file() + " (conclave context list)")));
    }
    return store.current().flatMap(store::find);
  }

  /** An {@code http://} or {@code https://} URL with a host; anything else is a usage error. */
  public static URI parseUrl(String text) {
    try {
      URI uri = new URI(text.strip());
      if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw CliFailure.usage("not an http:// or https:// URL: " + text);
      }
      return uri;
    } catch (java.net.URISyntaxException e) {
      throw CliFailure.usage("not a URL: " + text);
    }
  }

  private static String readToken(Path file) {
    try {
      String token = Files.readString(file).trim();
      if (token.isEmpty()) {
        throw CliFailure.usage("the token file " + file + " is empty");
      }
      return token;
    } catch (IOException e) {
      throw CliFailure.usage("cannot read the token file " + file + " (" + e.getClass().getSimpleName()
        + "); give --token-file, set CONCLAVE_TOKEN, or add a context");
    }
  }
}
