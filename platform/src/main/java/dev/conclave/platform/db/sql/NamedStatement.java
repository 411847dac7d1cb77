package dev.conclave.platform.db.sql;

import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One named SQL statement read from a {@code .sql} resource ({@link SqlFile}): its text with the
 * named parameters ({@code :name}) replaced by PostgreSQL's positional ones, and the names in
 * position order. A statement is bound by name ({@link #with}), never by position, so that adding
 * a parameter cannot shift the others.
 */
public record NamedStatement(String name, String sql, List<String> parameters) {

  public NamedStatement {
    parameters = List.copyOf(parameters);
  }

  /** Starts a binding with one parameter. */
  public Binding with(String parameter, Object value) {
    return new Binding(this).with(parameter, value);
  }

  /** A statement without parameters, ready to run. */
  public io.vertx.core.Future<RowSet<Row>> execute(SqlClient client) {
    return new Binding(this).execute(client);
  }

  /** Values for a statement's named parameters; every parameter must be given exactly once. */
  public static final class Binding {
    private final NamedStatement statement;
    private final Map<String, Object> values = new LinkedHashMap<>();

    private Binding(NamedStatement statement) {
      this.statement = statement;
    }

    public Binding with(String parameter, Object value) {
      if (!statement.parameters.contains(parameter)) {
        throw new IllegalArgumentException("statement " + statement.name + " has no parameter :" + parameter
          + " (it has " + statement.parameters + ")");
      }
      if (values.containsKey(parameter)) {
        throw new IllegalArgumentException("statement " + statement.name + ": parameter :" + parameter + " bound twice");
      }
      values.put(parameter, value);
      return this;
    }

    /** The positional tuple; fails naming the parameters that were not bound. */
    public Tuple tuple() {
      if (values.size() != statement.parameters.size()) {
        Set<String> missing = new java.util.LinkedHashSet<>(statement.parameters);
        missing.removeAll(values.keySet());
        throw new IllegalArgumentException("statement " + statement.name + ": parameters not bound: " + missing);
      }
      Tuple tuple = Tuple.tuple();
      for (String p : statement.parameters) {
        tuple.addValue(values.get(p));
      }
      return tuple;
    }

    public PreparedQuery<RowSet<Row>> query(SqlClient client) {
      return client.preparedQuery(statement.sql);
    }

    public io.vertx.core.Future<RowSet<Row>> execute(SqlClient client) {
      Tuple tuple;
      try {
        tuple = tuple();
      } catch (IllegalArgumentException e) {
        return io.vertx.core.Future.failedFuture(e);
      }
      return client.preparedQuery(statement.sql).execute(tuple);
    }
  }
}
