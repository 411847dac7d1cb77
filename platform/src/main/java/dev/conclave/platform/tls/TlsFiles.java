package dev.conclave.platform.tls;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The files of one TLS setup, each with the setting that names it: a certificate (with its chain), its
 * private key, and optionally the CA certificates the other side's certificate must chain to.
 */
public record TlsFiles(Named certificate, Named key, Optional<Named> ca) {

  /** A file and the setting that names it (for the one-line error). */
  public record Named(String setting, Path file) {
  }

  /** Reads and checks the files now (blocking: start-up). */
  public TlsMaterial load() {
    return TlsMaterial.check(this, Pem.read(certificate.setting(), certificate.file()), Pem.read(key.setting(), key.file()),
      ca.map(c -> Pem.read(c.setting(), c.file())));
  }

  /** The files' current contents, read without blocking, in the order certificate, key, CA. */
  Future<List<Buffer>> contents(Vertx vertx) {
    List<Future<Buffer>> reads = new ArrayList<>();
    reads.add(vertx.fileSystem().readFile(certificate.file().toString()));
    reads.add(vertx.fileSystem().readFile(key.file().toString()));
    ca.ifPresent(c -> reads.add(vertx.fileSystem().readFile(c.file().toString())));
    return Future.all(reads).map(all -> all.<Buffer>list());
  }
}
