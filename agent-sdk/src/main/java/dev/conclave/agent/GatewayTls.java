package dev.conclave.agent;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How a client reaches the gateway over TLS: the CA certificates it trusts (a PEM file, or the
 * system's trust store when none is named), and its own certificate and key for a gateway that asks
 * for one ({@code CONCLAVE_TLS_CLIENT_CA_FILE}). The gateway's host name is checked against its
 * certificate; HTTP/2 is negotiated by ALPN.
 *
 * <pre>{@code
 * AgentClient.builder(vertx).endpoints("conclave.example.com:443")
 *   .tls(GatewayTls.trusting(Path.of("ca.pem")))   // or GatewayTls.systemTrust()
 * }</pre>
 */
public record GatewayTls(Optional<Path> caFile, Optional<Path> certificateFile, Optional<Path> keyFile) {

  public GatewayTls {
    Objects.requireNonNull(caFile, "caFile");
    Objects.requireNonNull(certificateFile, "certificateFile");
    Objects.requireNonNull(keyFile, "keyFile");
    if (certificateFile.isPresent() != keyFile.isPresent()) {
      throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
    }
  }

  /** TLS trusting the system's CA certificates (the JDK's trust store). */
  public static GatewayTls systemTrust() {
    return new GatewayTls(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** TLS trusting only the CA certificates in {@code caFile} (PEM). */
  public static GatewayTls trusting(Path caFile) {
    return new GatewayTls(Optional.of(caFile), Optional.empty(), Optional.empty());
  }

  /** The same, presenting {@code certificateFile} with its {@code keyFile} (PEM) when the gateway asks. */
  public GatewayTls withClientCertificate(Path certificateFile, Path keyFile) {
    return new GatewayTls(caFile, Optional.of(certificateFile), Optional.of(keyFile));
  }

  /** Sets TLS on {@code options} (which it returns): ALPN, host-name checking, the trust and the client certificate. */
  public HttpClientOptions applyTo(HttpClientOptions options) {
    options.setSsl(true).setUseAlpn(true).setVerifyHost(true);
    caFile.ifPresent(ca -> options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString())));
    certificateFile.ifPresent(cert -> options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.toString())
      .setKeyPath(keyFile.orElseThrow().toString())));
    return options;
  }
}
