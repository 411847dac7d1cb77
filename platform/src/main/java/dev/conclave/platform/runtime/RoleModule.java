package dev.conclave.platform.runtime;

import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import io.vertx.core.Future;

import java.util.List;

/**
 * A service the node can run (gateway, coordinator, pack-host). Service modules provide one through
 * {@code META-INF/services}; the node starts those named in {@code CONCLAVE_ROLES}.
 */
public interface RoleModule {

  RoleName role();

  /** The schema this role owns; migrated before the role starts. */
  List<SchemaMigration> migrations();

  /** Deploys the role's verticles and returns what it adds to the edge. */
  Future<RunningRole> start(NodeContext context);

  /**
   * Whether this role's nodes must see every other node that uses their database, because they
   * take over work from nodes they cannot see. A node with such a role claims its database
   * ({@link dev.conclave.platform.cluster.DatabaseClaim}): for itself when standalone, shared with
   * its cluster otherwise.
   */
  default boolean oneClusterPerDatabase() {
    return false;
  }
}
