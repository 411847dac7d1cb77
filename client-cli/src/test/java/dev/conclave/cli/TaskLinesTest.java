package dev.conclave.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.StringReader;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code tasks create --from-file}: lines numbered as an editor numbers them, bad ones kept with why. */
class TaskLinesTest {

  private static List<TaskLines.Line> read(String text) {
    return TaskLines.read(new BufferedReader(new StringReader(text)));
  }

  @Test
  void eachLineIsOneTaskNumberedFromOneSkippingBlanksAndComments() {
    List<TaskLines.Line> lines = read("{\"title\":\"a\"}\n\n# a comment\n  {\"title\":\"b\",\"priority\":\"high\"}  \n");
    assertThat(lines).extracting(TaskLines.Line::number).containsExactly(1, 4);
    assertThat(lines.get(0).task()).hasValueSatisfying(t -> assertThat(t.getString("title")).isEqualTo("a"));
    assertThat(lines.get(1).task()).hasValueSatisfying(t -> assertThat(t.getString("priority")).isEqualTo("high"));
    assertThat(lines).allSatisfy(l -> assertThat(l.problem()).isNull());
  }

  @Test
  void aLineThatIsNotAJsonObjectKeepsItsNumberAndWhy() {
    List<TaskLines.Line> lines = read("{\"title\":\"a\"}\n{\"title\": \n[1,2]\n\"just text\"\n{\"title\":\"e\"}");
    assertThat(lines).extracting(TaskLines.Line::number).containsExactly(1, 2, 3, 4, 5);
    assertThat(lines.get(1).task()).isEmpty();
    assertThat(lines.get(1).problem()).startsWith("not valid JSON");
    assertThat(lines.get(2).problem()).isEqualTo("not a JSON object (one task per line)");
    assertThat(lines.get(3).problem()).isEqualTo("not a JSON object (one task per line)");
    assertThat(lines.get(4).task()).isPresent();
  }

  @Test
  void noLinesIsNoTasks() {
    assertThat(read("")).isEmpty();
    assertThat(read("\n# only a comment\n")).isEmpty();
  }
}
