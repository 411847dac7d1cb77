package dev.conclave.node;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.runtime.NodeRuntime;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.settings.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Runs a node with the roles in {@code CONCLAVE_ROLES}, configured from the environment. */
@Command(name = "serve", mixinStandardHelpOptions = true,
  description = "Run a node (configured by CONCLAVE_* environment variables; see README).")
final class ServeCommand implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger("conclave");

  @Override
  public void run() {
    ConclaveConfig config;
    try {
      config = ConclaveConfig.fromEnvironment();
    } catch (ConfigException e) {
      System.err.println("configuration error: " + e.getMessage());
      System.exit(2);
      return;
    }
    Shutdown shutdown = new Shutdown("node");
    NodeRuntime runtime;
    try {
      runtime = NodeRuntime.start(config, modulesFor(config));
    } catch (RuntimeException e) {
      shutdown.startFailed(e);
      java.util.Optional<ConfigException> setting = configurationError(e);
      if (setting.isPresent()) {
        // a setting to change (a port another process holds): one line, as for a bad value
        System.err.println("configuration error: " + setting.get().getMessage());
        System.exit(2);
        return;
      }
      LOG.error("start failed: {}", e.getMessage(), e);
      System.exit(1);
      return;
    }
    shutdown.awaitThenExit(runtime::stop);
  }

  /** The setting a start failure comes down to, if it is one. */
  static java.util.Optional<ConfigException> configurationError(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConfigException setting) {
        return java.util.Optional.of(setting);
      }
    }
    return java.util.Optional.empty();
  }

  static List<RoleModule> modulesFor(ConclaveConfig config) {
    List<RoleModule> modules = new ArrayList<>();
    for (RoleModule module : ServiceLoader.load(RoleModule.class)) {
      if (config.runs(module.role())) {
        modules.add(module);
      }
    }
    modules.sort((a, b) -> a.role().compareTo(b.role()));
    return modules;
  }
}
