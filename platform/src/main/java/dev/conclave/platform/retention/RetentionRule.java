package dev.conclave.platform.retention;

import dev.conclave.platform.db.sql.NamedStatement;

import java.util.function.IntFunction;

/**
 * One kind of row that retention deletes: {@code batch} binds, for a batch size, one statement that
 * deletes at most that many rows of {@code kind} (and what belongs to them) and returns every row it
 * deleted as {@code (kind text, line text)}, the line being the row as JSON ({@code to_jsonb}), which
 * is what the archive keeps and what a restore inserts back. A batch that deleted fewer rows of
 * {@code kind} than the batch size was the last one of a run.
 */
public record RetentionRule(String kind, IntFunction<NamedStatement.Binding> batch) {
}
