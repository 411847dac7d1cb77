package dev.conclave.gateway.api;

import io.vertx.pgclient.PgException;

/** Recognises PostgreSQL unique-constraint violations, which the API reports as ALREADY_EXISTS. */
final class UniqueViolations {

  private UniqueViolations() {
  }

  static boolean is(Throwable err) {
    return err instanceof PgException pg && "23505".equals(pg.getSqlState());
  }
}
