package dev.conclave.platform.cluster;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.HostAndPort;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Optional;

/**
 * The address this member binds and advertises for Hazelcast and the event bus:
 * {@code CONCLAVE_CLUSTER_HOST} when set; loopback when every configured member is on loopback (a
 * local cluster); otherwise the first site-local IPv4 address of an up interface.
 */
final class ClusterHost {

  private ClusterHost() {
  }

  static String resolve(ConclaveConfig config) {
    if (config.clusterHost().isPresent()) {
      return config.clusterHost().get();
    }
    if (!config.clusterMembers().isEmpty() && config.clusterMembers().stream().allMatch(ClusterHost::loopback)) {
      return "127.0.0.1";
    }
    return siteLocalAddress().orElse("127.0.0.1");
  }

  private static boolean loopback(HostAndPort member) {
    try {
      return InetAddress.getByName(member.host()).isLoopbackAddress();
    } catch (Exception e) {
      return false;
    }
  }

  private static Optional<String> siteLocalAddress() {
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
            return Optional.of(address.getHostAddress());
          }
        }
      }
    } catch (SocketException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
