package dev.conclave.platform.tls;

import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Rotation without a restart: reads a TLS setup's files every {@link #EVERY} and, when their contents
 * changed and check out, hands the new material to the servers (Vert.x's {@code updateSSLOptions}: new
 * connections get it, open ones keep the handshake they made). cert-manager renews a Secret and the
 * kubelet swaps the mounted files at once; files copied by hand may be caught half way (a new
 * certificate beside the old key), which fails the check and is tried again at the next read, the
 * old material serving meanwhile.
 */
public final class CertificateWatch {

  private static final Logger LOG = LoggerFactory.getLogger(CertificateWatch.class);
  /** How often the files are read: well within the minute a renewal may take to be picked up. */
  public static final Duration EVERY = Duration.ofSeconds(10);

  private final Vertx vertx;
  private final TlsFiles files;
  private final String what;
  private final Function<TlsMaterial, Future<?>> use;
  private List<Buffer> current;
  /** The contents last refused, so that a bad file is reported once, not every read. */
  private List<Buffer> refused;
  private boolean reading;

  private CertificateWatch(Vertx vertx, TlsFiles files, String what, Function<TlsMaterial, Future<?>> use) {
    this.vertx = vertx;
    this.files = files;
    this.what = what;
    this.use = use;
  }

  /**
   * Starts watching; {@code what} names the setup in logs. The first read only records the contents
   * (the servers were just built from them).
   */
  public static CertificateWatch start(Vertx vertx, TlsFiles files, String what, Duration every, Function<TlsMaterial, Future<?>> use) {
    CertificateWatch watch = new CertificateWatch(vertx, files, what, use);
    vertx.runOnContext(v -> {
      watch.check();
      vertx.setPeriodic(every.toMillis(), id -> watch.check());
    });
    return watch;
  }

  private void check() {
    if (reading) {
      return;
    }
    reading = true;
    files.contents(vertx).compose(contents -> {
      if (current == null) {
        current = contents;
        return Future.succeededFuture();
      }
      if (contents.equals(current) || contents.equals(refused)) {
        return Future.succeededFuture();
      }
      TlsMaterial material;
      try {
        material = TlsMaterial.check(files, contents);
      } catch (ConfigException e) {
        refused = contents;
        LOG.warn("tls: {} files changed but cannot be used, the previous certificate stays: {}", what, e.getMessage());
        return Future.succeededFuture();
      }
      return use.apply(material).onSuccess(done -> {
        current = contents;
        refused = null;
        LOG.info("tls: {} certificate renewed, new connections use it {}", what, material.describe());
      }).onFailure(e -> {
        refused = contents;
        LOG.warn("tls: {} files changed but the servers refused them, the previous certificate stays: {}", what, KeyCertificate.oneLine(e));
      });
    }).onFailure(e -> LOG.warn("tls: cannot read the {} files (the previous certificate stays): {}", what, KeyCertificate.oneLine(e)))
      .onComplete(done -> reading = false);
  }
}
