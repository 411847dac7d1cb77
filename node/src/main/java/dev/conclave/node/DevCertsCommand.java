package dev.conclave.node;

import dev.conclave.platform.tls.DevCertificates;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Throwaway certificates for TLS on a laptop ({@code ./conclave cluster N --tls}), made with the JDK's
 * keytool: a CA with a node certificate and a client certificate for the public ports, and a cluster
 * CA with a member certificate for the event bus, all PEM. A directory that already holds them is
 * left alone, so that clients keep trusting the same CA across restarts.
 */
@Command(name = "dev-certs", mixinStandardHelpOptions = true,
  description = "Make throwaway TLS certificates (never for production): ca.pem, node.pem/.key, client.pem/.key, "
    + "cluster-ca.pem, cluster.pem/.key.")
final class DevCertsCommand implements Callable<Integer> {

  @Option(names = "--dir", required = true, description = "Directory to write them to (created owner-only).")
  Path dir;

  @Option(names = "--name", description = "Extra host name or IP address for the node and cluster certificates "
    + "(repeatable; localhost, 127.0.0.1, ::1 and this host's name are always in).")
  List<String> names = new ArrayList<>();

  @Override
  public Integer call() throws IOException {
    DevCertificates certs = DevCertificates.in(dir);
    if (Files.isRegularFile(certs.caCert()) && Files.isRegularFile(certs.nodeKey()) && Files.isRegularFile(certs.clusterKey())) {
      System.err.println("dev-certs: " + certs.dir() + " already holds certificates; kept (delete it for new ones)");
    } else {
      List<String> all = new ArrayList<>(DevCertificates.localNames());
      names.stream().filter(n -> !all.contains(n)).forEach(all::add);
      certs = DevCertificates.generate(dir, all);
      System.err.println("dev-certs: made a throwaway CA and certificates for " + String.join(", ", all) + " in " + certs.dir());
    }
    System.out.println(certs.dir());
    return 0;
  }
}
