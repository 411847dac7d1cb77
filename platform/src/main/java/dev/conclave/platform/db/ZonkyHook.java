package dev.conclave.platform.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps zonky's own shutdown hook from stopping PostgreSQL under a draining node.
 *
 * <p>zonky registers a JVM shutdown hook that runs {@code pg_ctl stop -m fast} as soon as the JVM
 * begins to exit. A node stops in its own shutdown hook (SIGTERM) and writes to the database until
 * its drain ends; the JVM runs hooks concurrently, so zonky's would cut the drain off. zonky has no
 * switch for that hook and keeps no reference to it, so {@link #disarm} marks the instance closed
 * (zonky's {@code close()}, and so its hook, then does nothing) and {@link #rearm} clears the mark
 * just before {@link EmbeddedPostgresServer#close()} stops the server. If a zonky release renames the
 * field, the server logs a warning and keeps zonky's hook (a SIGTERM may then end the drain early).
 */
final class ZonkyHook {

  private static final Logger LOG = LoggerFactory.getLogger(ZonkyHook.class);

  private ZonkyHook() {
  }

  static void disarm(EmbeddedPostgres postgres) {
    closedFlag(postgres, true);
  }

  static void rearm(EmbeddedPostgres postgres) {
    closedFlag(postgres, false);
  }

  private static void closedFlag(EmbeddedPostgres postgres, boolean closed) {
    try {
      Field field = EmbeddedPostgres.class.getDeclaredField("closed");
      field.setAccessible(true);
      ((AtomicBoolean) field.get(postgres)).set(closed);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("zonky's shutdown hook stays armed: a SIGTERM may stop PostgreSQL before the node's drain ends error={}", e.toString());
    }
  }
}
