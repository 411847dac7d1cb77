package dev.conclave.platform.cluster;

import com.hazelcast.config.Config;
import dev.conclave.platform.config.ConclaveConfig;

/** Lets tests in other packages inspect the Hazelcast config the bootstrap builds. */
public final class VertxBootstrapAccess {

  private VertxBootstrapAccess() {
  }

  public static Config hazelcast(ConclaveConfig config, String host) {
    return VertxBootstrap.hazelcastConfig(config, host);
  }
}
