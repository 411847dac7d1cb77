package dev.conclave.cli;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a client command talks to and as whom: the node URLs (tried in turn by {@code session}; the
 * other commands use the first), the bearer token, and the CA file trusted for {@code https://}.
 */
public record Target(List<URI> urls, String token, Optional<Path> caFile) {

  public URI url() {
    return urls.get(0);
  }
}
