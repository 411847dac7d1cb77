package dev.conclave.platform.db.sql;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reading result sets and passing timestamps, for every store: the one copy of what the gateway's and
 * the pack host's stores each had. Timestamps are {@code timestamptz}, bound and read as UTC offsets.
 */
public final class Rows {

  private Rows() {
  }

  /** The first row, mapped; empty when there is none. */
  public static <T> Optional<T> first(RowSet<Row> rows, Function<Row, T> mapper) {
    var it = rows.iterator();
    return it.hasNext() ? Optional.of(mapper.apply(it.next())) : Optional.empty();
  }

  /** Every row, mapped, in order. */
  public static <T> List<T> all(RowSet<Row> rows, Function<Row, T> mapper) {
    List<T> out = new ArrayList<>(rows.size());
    rows.forEach(r -> out.add(mapper.apply(r)));
    return out;
  }

  /** A timestamp parameter; null stays null. */
  public static OffsetDateTime utc(Instant instant) {
    return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
  }

  /** A timestamp column, or null when it is NULL (as {@link Row}'s own getters answer). */
  public static Instant instant(Row row, String column) {
    OffsetDateTime t = row.getOffsetDateTime(column);
    return t == null ? null : t.toInstant();
  }
}
