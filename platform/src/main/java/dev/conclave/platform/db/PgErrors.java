package dev.conclave.platform.db;

import io.vertx.pgclient.PgException;

/** Recognises PostgreSQL errors that repositories turn into caller-facing answers. */
public final class PgErrors {

  private static final String UNIQUE_VIOLATION = "23505";

  private PgErrors() {
  }

  /** A unique constraint refused the write. */
  public static boolean uniqueViolation(Throwable err) {
    return err instanceof PgException pg && UNIQUE_VIOLATION.equals(pg.getSqlState());
  }

  /** A unique constraint whose name contains {@code constraint} refused the write. */
  public static boolean uniqueViolation(Throwable err, String constraint) {
    return uniqueViolation(err) && String.valueOf(((PgException) err).getConstraint()).contains(constraint);
  }
}
