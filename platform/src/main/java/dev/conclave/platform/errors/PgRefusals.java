package dev.conclave.platform.errors;

import io.vertx.pgclient.PgException;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What PostgreSQL refused because of a value the caller sent, as the caller's error: a value it
 * cannot take (SQLSTATE class 22: too long, bad syntax, a NUL, out of range) or one that breaks an
 * integrity rule (class 23: a CHECK, a NOT NULL, a reference to nothing, a duplicate). The detail
 * names the field (or the rule, when the field cannot be told) in our words: never the statement,
 * never the table's text as PostgreSQL wrote it. Everything else is not the caller's doing.
 */
final class PgRefusals {

  private static final String NOT_NULL = "23502";
  private static final String FOREIGN_KEY = "23503";
  private static final String UNIQUE = "23505";
  private static final String CHECK = "23514";
  private static final String EXCLUSION = "23P01";
  /** The columns of a key in PostgreSQL's detail, {@code Key (a, b)=(…) already exists.} */
  private static final Pattern KEY_COLUMNS = Pattern.compile("^Key \\(([^)]{1,200})\\)=");
  /** PostgreSQL's own names for unnamed constraints: {@code <table>_<column>_check}, {@code _fkey}, {@code _key}. */
  private static final Pattern GENERATED_NAME = Pattern.compile("^(.+?)_(check|fkey|key|excl)[0-9]*$");

  private PgRefusals() {
  }

  /** The caller's error {@code pg} stands for; empty when it is not the value's fault. */
  static Optional<ConclaveException> of(PgException pg) {
    String state = pg.getSqlState();
    if (state == null) {
      return Optional.empty();
    }
    if (state.startsWith("22")) {
      // class 22, "data exception": PostgreSQL's one-line reason names the type, never the statement
      return Optional.of(ConclaveException.invalid("value_invalid", "a value in the request cannot be stored: " + pg.getErrorMessage()));
    }
    String field = field(pg);
    return Optional.ofNullable(switch (state) {
      case CHECK -> ConclaveException.invalid("value_invalid", (field == null ? "a value" : field)
        + " is outside what the field accepts (rule " + rule(pg) + ")");
      case NOT_NULL -> ConclaveException.invalid("value_required", (field == null ? "a required value" : field) + " is required");
      case FOREIGN_KEY -> String.valueOf(pg.getErrorMessage()).startsWith("update or delete")
        ? new ConclaveException(ErrorKind.FAILED_PRECONDITION, "still_referenced", "it is still in use (rule " + rule(pg) + ")")
        : ConclaveException.invalid("reference_unknown", (field == null ? "a value" : field) + " names something that does not exist");
      case UNIQUE -> new ConclaveException(ErrorKind.ALREADY_EXISTS, "value_taken", (field == null ? "a value" : field) + " is already taken");
      case EXCLUSION -> new ConclaveException(ErrorKind.CONFLICT, "value_conflict", "the value conflicts with an existing one (rule " + rule(pg) + ")");
      default -> null;
    });
  }

  /** The field the refusal is about: PostgreSQL's column, the key's columns, or the column in a generated constraint name. */
  private static String field(PgException pg) {
    if (pg.getColumn() != null) {
      return pg.getColumn();
    }
    if (pg.getDetail() != null) {
      Matcher key = KEY_COLUMNS.matcher(pg.getDetail());
      if (key.find()) {
        return key.group(1);
      }
    }
    String constraint = pg.getConstraint();
    String table = pg.getTable();
    if (constraint != null && table != null && constraint.startsWith(table + "_")) {
      Matcher generated = GENERATED_NAME.matcher(constraint.substring(table.length() + 1));
      if (generated.matches()) {
        return generated.group(1);
      }
    }
    return null;
  }

  private static String rule(PgException pg) {
    return pg.getConstraint() == null ? "unnamed" : pg.getConstraint();
  }
}
