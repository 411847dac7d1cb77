package dev.conclave.platform.db.sql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlFileTest {

  @Test
  void namedParametersBecomePositionalOncePerName() {
    SqlFile file = SqlFile.parse("t.sql", """
      -- a file comment
      -- name: FindToken
      -- the statement's own comment
      SELECT id FROM auth.tokens WHERE id = :token_id AND principal_id = :principal OR id = :token_id;

      -- name: Other
      SELECT 1
      """);
    NamedStatement find = file.get("FindToken");
    assertThat(find.sql()).endsWith("WHERE id = $1 AND principal_id = $2 OR id = $1");
    assertThat(find.parameters()).containsExactly("token_id", "principal");
    assertThat(file.get("Other").sql()).isEqualTo("SELECT 1");
    assertThat(file.statements().keySet()).containsExactly("FindToken", "Other");
  }

  @Test
  void castsLiteralsCommentsAndBodiesAreLeftAlone() {
    NamedStatement s = SqlFile.parse("t.sql", """
      -- name: S
      SELECT :a::int, ':not', "x:y", $$ :body $$, $q$ it's :q $q$ -- :comment
      , 'it''s :quoted', :b
      """).get("S");
    assertThat(s.sql()).isEqualTo("SELECT $1::int, ':not', \"x:y\", $$ :body $$, $q$ it's :q $q$ -- :comment\n, 'it''s :quoted', $2");
    assertThat(s.parameters()).containsExactly("a", "b");
  }

  @Test
  void bindingIsByNameAndComplete() {
    NamedStatement s = SqlFile.parse("t.sql", "-- name: S\nSELECT :a, :b\n").get("S");
    assertThat(s.with("b", 2).with("a", 1).tuple().getValue(0)).isEqualTo(1);
    assertThatThrownBy(() -> s.with("a", 1).tuple()).hasMessageContaining("not bound: [b]");
    assertThatThrownBy(() -> s.with("c", 1)).hasMessageContaining("no parameter :c");
    assertThatThrownBy(() -> s.with("a", 1).with("a", 2)).hasMessageContaining("bound twice");
  }

  @Test
  void malformedFilesFailWithTheirName() {
    assertThatThrownBy(() -> SqlFile.parse("bad.sql", "SELECT 1")).hasMessageContaining("bad.sql");
    assertThatThrownBy(() -> SqlFile.parse("bad.sql", "-- name: A\nSELECT $1")).hasMessageContaining("positional");
    assertThatThrownBy(() -> SqlFile.parse("bad.sql", "-- name: A\nSELECT 1\n-- name: A\nSELECT 2"))
      .hasMessageContaining("named twice");
    assertThatThrownBy(() -> SqlFile.parse("bad.sql", "-- name: A\n")).hasMessageContaining("empty");
    assertThatThrownBy(() -> SqlFile.of(SqlFileTest.class, "missing.sql")).hasMessageContaining("dev/conclave/platform/db/sql/missing.sql");
  }
}
