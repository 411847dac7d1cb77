package dev.conclave.packs.store;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Small helpers for reading result sets and passing timestamps. */
final class Rows {

  private Rows() {
  }

  static <T> Optional<T> first(RowSet<Row> rows, Function<Row, T> mapper) {
    var it = rows.iterator();
    return it.hasNext() ? Optional.of(mapper.apply(it.next())) : Optional.empty();
  }

  static <T> List<T> all(RowSet<Row> rows, Function<Row, T> mapper) {
    List<T> out = new ArrayList<>(rows.size());
    rows.forEach(r -> out.add(mapper.apply(r)));
    return out;
  }

  /** A timestamp parameter; null stays null. */
  static OffsetDateTime utc(Instant instant) {
    return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
  }

  /** A timestamp column, or null. */
  static Instant instant(Row row, String column) {
    OffsetDateTime t = row.getOffsetDateTime(column);
    return t == null ? null : t.toInstant();
  }
}
