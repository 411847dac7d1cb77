package dev.conclave.swarm.app;

import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/** The coordinator role: the Jetpack swarm protocol are not built yet, so it deploys nothing and says so. */
public final class CoordinatorRole implements RoleModule {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRole.class);

  @Override
  public RoleName role() {
    return RoleName.COORDINATOR;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of();
  }

  @Override
  public Future<RunningRole> start(NodeContext context) {
    LOG.warn("role coordinator: the Jetpack swarm protocol are not built yet; this role deploys nothing on node={}", context.nodeId());
    return Future.succeededFuture(RunningRole.idle());
  }
}
