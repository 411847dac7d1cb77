package dev.conclave.platform.testing;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.runtime.NodeRuntime;
import dev.conclave.platform.runtime.RoleModule;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A real node in this JVM for integration tests: real PostgreSQL (a fresh database), real ports on
 * 127.0.0.1, the production boot sequence. Close it to stop it gracefully.
 */
public final class TestNode implements AutoCloseable {

  /** The CONCLAVE_SECRETS_KEY every test node gets unless its builder says otherwise. */
  public static final String SECRETS_KEY = "Y29uY2xhdmUtdGVzdC1zZWNyZXRzLWtleS0zMmJ5dGU=";

  /**
   * The data directories builders made (not the ones a test gave): deleted when the JVM ends, not when
   * a node closes, since a test may restart a node on its directory or read a file from it afterwards.
   */
  private static final TempDirs DATA_DIRS = new TempDirs("conclave-test-node");

  private final NodeRuntime runtime;
  private final Path dataDir;
  private final PgUrl database;

  private TestNode(NodeRuntime runtime, Path dataDir, PgUrl database) {
    this.runtime = runtime;
    this.dataDir = dataDir;
    this.database = database;
  }

  public static Builder builder() {
    return new Builder();
  }

  public NodeRuntime runtime() {
    return runtime;
  }

  public int grpcPort() {
    return runtime.grpcPort();
  }

  public int httpPort() {
    return runtime.httpPort();
  }

  public Path dataDir() {
    return dataDir;
  }

  public PgUrl database() {
    return database;
  }

  /** The token the node wrote to admin.token on first start. */
  public String adminToken() {
    try {
      return Files.readString(runtime.config().adminTokenFile()).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    runtime.stop();
  }

  /** Builds a test node; defaults: a fresh database, a temp data dir, free ports, no roles. */
  public static final class Builder {
    private final List<RoleModule> modules = new ArrayList<>();
    private final Map<String, String> env = new HashMap<>();
    private PgUrl database;
    private Path dataDir;

    public Builder role(RoleModule module) {
      modules.add(module);
      return this;
    }

    public Builder env(String variable, String value) {
      env.put(variable, value);
      return this;
    }

    public Builder env(dev.conclave.settings.Setting<?> setting, String value) {
      return env(setting.name(), value);
    }

    /** Share a database between nodes (a cluster) or across restarts. */
    public Builder database(PgUrl url) {
      this.database = url;
      return this;
    }

    public Builder dataDir(Path dir) {
      this.dataDir = dir;
      return this;
    }

    public TestNode start() {
      try {
        Path dir = dataDir != null ? dataDir : DATA_DIRS.create();
        PgUrl db = database != null ? database : TestDatabase.freshDatabase();
        Map<String, String> vars = new HashMap<>();
        vars.put("CONCLAVE_ROLES", modules.isEmpty() ? "gateway" : String.join(",",
          modules.stream().map(m -> m.role().id()).toList()));
        vars.put("CONCLAVE_NODE_ID", "test-" + Long.toHexString(System.nanoTime() & 0xffffff));
        vars.put("CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next()));
        vars.put("CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()));
        vars.put("CONCLAVE_BIND_HOST", "127.0.0.1");
        vars.put("CONCLAVE_DATA_DIR", dir.toString());
        vars.put("CONCLAVE_PG_URL", db.full());
        vars.put("CONCLAVE_EDGE_INSTANCES", "2");
        vars.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "3");
        vars.put("CONCLAVE_PG_POOL_SIZE", "8");
        // test nodes on one database are a cluster's nodes: they share the secrets key (set it to "" for a generated one)
        vars.put("CONCLAVE_SECRETS_KEY", SECRETS_KEY);
        vars.putAll(env);
        ConclaveConfig config = ConclaveConfig.from(vars);
        return new TestNode(NodeRuntime.start(config, modules), dir, db);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
