package dev.conclave.platform.runtime;

import dev.conclave.platform.server.EdgeContribution;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.List;

/** A started role: its edge contributions and how it winds down. */
public interface RunningRole {

  List<EdgeContribution> contributions();

  /**
   * First step of a graceful stop, while the servers still accept: hand work over (for example tell
   * agents to reconnect elsewhere). Must finish within {@code grace}.
   */
  default Future<Void> drain(Duration grace) {
    return Future.succeededFuture();
  }

  /** Last step: undeploy the role's verticles. */
  Future<Void> stop();

  /** A role that runs nothing (its protocol is not built on this node). */
  static RunningRole idle() {
    return new RunningRole() {
      @Override
      public List<EdgeContribution> contributions() {
        return List.of();
      }

      @Override
      public Future<Void> stop() {
        return Future.succeededFuture();
      }
    };
  }
}
