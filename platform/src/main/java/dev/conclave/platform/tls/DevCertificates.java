package dev.conclave.platform.tls;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Throwaway certificates for TLS on a laptop and in tests, made with the JDK's own {@code keytool}
 * (no openssl needed): a CA for the public ports with a node certificate (server and client use) and
 * a client certificate, and a separate cluster CA with one member certificate for the event bus. The
 * certificates and keys are PEM files, as cert-manager writes them; the CAs' key stores stay in the
 * directory so that {@link #renewNode} can issue a new node certificate, as a renewal would.
 *
 * <p>Never for production: the key stores' password is fixed and the CAs are whoever has the directory.
 */
public final class DevCertificates {

  /** The key stores' password: the directory's permissions are what protects these keys. */
  private static final String STORE_PASSWORD = "conclave-throwaway";
  private static final String VALIDITY_DAYS = "30";
  private static final Pattern IP = Pattern.compile("[0-9.]+|.*:.*");
  private static final long KEYTOOL_TIMEOUT_SECONDS = 120;

  private final Path dir;

  private DevCertificates(Path dir) {
    this.dir = dir;
  }

  /** The certificates already in {@code dir}. */
  public static DevCertificates in(Path dir) {
    return new DevCertificates(dir.toAbsolutePath());
  }

  /**
   * Makes both CAs and every certificate in {@code dir} (created owner-only), for the host names and IP
   * addresses in {@code names}, which the node and cluster certificates carry as subject alternative names.
   */
  public static DevCertificates generate(Path dir, List<String> names) throws IOException {
    DevCertificates certs = new DevCertificates(dir.toAbsolutePath());
    Files.createDirectories(certs.dir);
    ownerOnly(certs.dir, "rwx------");
    certs.authority("ca", "CN=Conclave throwaway CA");
    certs.leaf("ca", "node", "CN=conclave-node", names, "serverAuth,clientAuth");
    certs.leaf("ca", "client", "CN=conclave-client", List.of(), "clientAuth");
    certs.authority("cluster-ca", "CN=Conclave throwaway cluster CA");
    certs.leaf("cluster-ca", "cluster", "CN=conclave-cluster-member", names, "serverAuth,clientAuth");
    return certs;
  }

  /** A new key pair and certificate for the node from the same CA, written over node.pem and node.key. */
  public void renewNode(List<String> names) throws IOException {
    Files.deleteIfExists(dir.resolve("node.p12"));
    leaf("ca", "node", "CN=conclave-node", names, "serverAuth,clientAuth");
  }

  public Path dir() {
    return dir;
  }

  /** The CA clients trust for the public ports ({@code CONCLAVE_TLS_*}), and that client certificates chain to. */
  public Path caCert() {
    return dir.resolve("ca.pem");
  }

  public Path nodeCert() {
    return dir.resolve("node.pem");
  }

  public Path nodeKey() {
    return dir.resolve("node.key");
  }

  public Path clientCert() {
    return dir.resolve("client.pem");
  }

  public Path clientKey() {
    return dir.resolve("client.key");
  }

  public Path clusterCaCert() {
    return dir.resolve("cluster-ca.pem");
  }

  public Path clusterCert() {
    return dir.resolve("cluster.pem");
  }

  public Path clusterKey() {
    return dir.resolve("cluster.key");
  }

  private void authority(String alias, String dname) throws IOException {
    keytool("-genkeypair", "-keystore", store(alias), "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname,
      "-validity", VALIDITY_DAYS, "-ext", "BasicConstraints:critical=ca:true", "-ext", "KeyUsage:critical=keyCertSign,cRLSign");
    keytool("-exportcert", "-rfc", "-keystore", store(alias), "-alias", alias, "-file", dir.resolve(alias + ".pem").toString());
  }

  private void leaf(String ca, String alias, String dname, List<String> names, String usages) throws IOException {
    keytool("-genkeypair", "-keystore", store(alias), "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname,
      "-validity", VALIDITY_DAYS);
    Path request = dir.resolve(alias + ".csr");
    keytool("-certreq", "-keystore", store(alias), "-alias", alias, "-file", request.toString());
    Path partial = dir.resolve(alias + ".pem.partial");
    List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-keystore", store(ca), "-alias", ca, "-infile", request.toString(),
      "-outfile", partial.toString(), "-validity", VALIDITY_DAYS, "-ext", "KeyUsage:critical=digitalSignature",
      "-ext", "ExtendedKeyUsage=" + usages));
    if (!names.isEmpty()) {
      sign.addAll(List.of("-ext", "SubjectAlternativeName=" + String.join(",", names.stream().map(DevCertificates::san).toList())));
    }
    keytool(sign.toArray(String[]::new));
    Files.delete(request);
    // each file is replaced whole (a renewal under a running node): the key first, then its certificate
    writeKey(alias);
    Files.move(partial, dir.resolve(alias + ".pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
      java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static String san(String name) {
    return (IP.matcher(name).matches() ? "ip:" : "dns:") + name;
  }

  /** The leaf's private key, from its key store to PEM (PKCS#8), readable by the owner only. */
  private void writeKey(String alias) throws IOException {
    Key key;
    try (InputStream in = Files.newInputStream(dir.resolve(alias + ".p12"))) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, STORE_PASSWORD.toCharArray());
      key = store.getKey(alias, STORE_PASSWORD.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the key keytool made for " + alias + ": " + e.getMessage(), e);
    }
    String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
      .encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n";
    Path file = dir.resolve(alias + ".key");
    Path partial = dir.resolve(alias + ".key.partial");
    Files.writeString(partial, pem);
    ownerOnly(partial, "rw-------");
    Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private String store(String alias) {
    return dir.resolve(alias + ".p12").toString();
  }

  private void keytool(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    command.addAll(List.of("-storetype", "PKCS12", "-storepass", STORE_PASSWORD, "-noprompt"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("keytool " + args[0] + " did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while keytool ran", e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (process.exitValue() != 0) {
      throw new IOException("keytool " + args[0] + " failed (exit " + process.exitValue() + "): " + output);
    }
  }

  private static void ownerOnly(Path path, String permissions) throws IOException {
    try {
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: nothing to narrow
    }
  }

  /** This machine's host name, for a certificate's names (empty when it cannot be found). */
  public static List<String> localNames() {
    List<String> names = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
    try {
      String host = InetAddress.getLocalHost().getHostName();
      if (!names.contains(host) && !IP.matcher(host).matches()) {
        names.add(host);
      }
    } catch (IOException e) {
      // no name: the loopback names do
    }
    return names;
  }
}
