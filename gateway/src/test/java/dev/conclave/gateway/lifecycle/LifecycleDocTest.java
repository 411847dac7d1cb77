package dev.conclave.gateway.lifecycle;

import dev.conclave.gateway.model.LifecycleState;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/sessions.md's table of allowed transitions is the one {@link LifecycleState} enforces. */
class LifecycleDocTest {

  @Test
  void theDocumentedTransitionTableIsTheEnforcedOne() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "sessions.md"));
    int start = doc.indexOf("| from | to |");
    assertThat(start).as("docs/sessions.md has the transition table").isNotNegative();
    Map<LifecycleState, Set<LifecycleState>> documented = new EnumMap<>(LifecycleState.class);
    doc.substring(start).lines().skip(2).takeWhile(l -> l.startsWith("|")).forEach(row -> {
      String[] cells = row.split("\\|");
      LifecycleState from = LifecycleState.parse(cells[1].trim()).orElseThrow();
      Set<LifecycleState> to = Arrays.stream(cells[2].split(",")).map(String::trim).filter(s -> !s.equals("—"))
        .map(s -> LifecycleState.parse(s).orElseThrow(() -> new AssertionError("not a state: " + s))).collect(Collectors.toSet());
      documented.put(from, to);
    });
    for (LifecycleState s : LifecycleState.values()) {
      assertThat(documented.get(s)).as("documented transitions from " + s.display()).isEqualTo(s.next());
    }
  }
}
