package dev.conclave.packs.app;

import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The pack-tool host role. PackService (pack registration and tool dispatch) and MCP are not built
 * yet, so this role deploys nothing and says so, rather than pretending to serve.
 */
public final class PackHostRole implements RoleModule {

  private static final Logger LOG = LoggerFactory.getLogger(PackHostRole.class);

  @Override
  public RoleName role() {
    return RoleName.PACK_HOST;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of();
  }

  @Override
  public Future<RunningRole> start(NodeContext context) {
    LOG.warn("role pack-host: PackService and MCP are not built yet; this role deploys nothing on node={}", context.nodeId());
    return Future.succeededFuture(RunningRole.idle());
  }
}
