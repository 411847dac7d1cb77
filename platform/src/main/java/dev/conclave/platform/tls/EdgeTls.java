package dev.conclave.platform.tls;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Setting;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.ServerSSLOptions;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * TLS on the node's two public ports, from the PEM files {@code CONCLAVE_TLS_*} name. With it on,
 * each port speaks TLS only: a plaintext connection fails its handshake. The gRPC port offers HTTP/2
 * and HTTP/1.1 (gRPC-Web) by ALPN and, with {@code CONCLAVE_TLS_CLIENT_CA_FILE}, requires a client
 * certificate chaining to those CAs. The HTTP port stays HTTP/1.1 (no ALPN): its header and body
 * deadlines ({@code server.HttpDeadlines}) read HTTP/1 connections only.
 */
public final class EdgeTls {

  /** A client that opens a connection and never finishes its handshake is dropped after this long. */
  static final long HANDSHAKE_SECONDS = 10;

  private final TlsFiles files;
  private final TlsMaterial material;

  private EdgeTls(TlsFiles files, TlsMaterial material) {
    this.files = files;
    this.material = material;
  }

  /**
   * TLS for the public ports when the configuration turns it on, its files read and checked; empty
   * when it is off. A node configured for TLS without a usable certificate fails here with one line
   * ({@link ConfigException}) naming the setting.
   */
  public static Optional<EdgeTls> resolve(ConclaveConfig config) {
    if (!config.tls()) {
      refuseFilesWhenOff(config, NodeSettings.TLS, List.of(NodeSettings.TLS_CERT_FILE, NodeSettings.TLS_KEY_FILE,
        NodeSettings.TLS_CLIENT_CA_FILE));
      return Optional.empty();
    }
    TlsFiles files = new TlsFiles(required(config, NodeSettings.TLS_CERT_FILE, NodeSettings.TLS),
      required(config, NodeSettings.TLS_KEY_FILE, NodeSettings.TLS),
      config.find(NodeSettings.TLS_CLIENT_CA_FILE).map(p -> new TlsFiles.Named(NodeSettings.TLS_CLIENT_CA_FILE.name(), p)));
    return Optional.of(new EdgeTls(files, files.load()));
  }

  /** A file setting TLS needs, or the one line saying it is missing. */
  static TlsFiles.Named required(ConclaveConfig config, Setting<Path> file, Setting<Boolean> toggle) {
    return config.find(file).map(p -> new TlsFiles.Named(file.name(), p)).orElseThrow(() -> new ConfigException(file.name(),
      "must be set when " + toggle.name() + " is on: a node configured for TLS does not start without its certificate and key"));
  }

  /** TLS turned off explicitly while some of its files are named: one of the two is a mistake. */
  static void refuseFilesWhenOff(ConclaveConfig config, Setting<Boolean> toggle, List<Setting<Path>> files) {
    for (Setting<Path> file : files) {
      if (config.find(file).isPresent()) {
        throw new ConfigException(toggle.name(), "is off, but " + file.name() + " is set: turn TLS on or remove it");
      }
    }
  }

  public TlsFiles files() {
    return files;
  }

  /** The material read at start-up. */
  public TlsMaterial material() {
    return material;
  }

  /** Whether gRPC clients must present a certificate. */
  public boolean clientCertificates() {
    return material.trust().isPresent();
  }

  /** The gRPC port's options with TLS: ALPN (h2, then http/1.1), and client certificates when CAs are named. */
  public HttpServerOptions grpc(HttpServerOptions options) {
    options.setSsl(true).setUseAlpn(true).setSslHandshakeTimeout(HANDSHAKE_SECONDS).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
      .setKeyCertOptions(material.keyCert());
    material.trust().ifPresent(trust -> options.setTrustOptions(trust).setClientAuth(ClientAuth.REQUIRED));
    return options;
  }

  /** The HTTP port's options with TLS: HTTP/1.1 only, no client certificates (browsers). */
  public HttpServerOptions http(HttpServerOptions options) {
    return options.setSsl(true).setUseAlpn(false).setSslHandshakeTimeout(HANDSHAKE_SECONDS).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
      .setKeyCertOptions(material.keyCert());
  }

  /** A port's TLS options with renewed material, for {@code HttpServer.updateSSLOptions}. */
  public static ServerSSLOptions renewed(HttpServerOptions port, TlsMaterial renewed) {
    ServerSSLOptions ssl = port.getSslOptions().copy().setKeyCertOptions(renewed.keyCert());
    if (port.getClientAuth() == ClientAuth.REQUIRED) {
      renewed.trust().ifPresent(ssl::setTrustOptions);
    }
    return ssl;
  }
}
