package dev.conclave.e2e.docs;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How the docs test reads a page: which blocks are examples, their markers, the output they show. */
class DocPageTest {

  @Test
  void shellBlocksAreExamplesWithTheirMarkersAndTheOutputThatFollowsThem() {
    DocPage page = DocPage.parse("p.md", List.of(
      "# Title",
      "```sh",
      "./conclave token --new-client a > a.token",
      "```",
      "It prints:",
      "```text",
      "token: principal=…",
      "```",
      "```sh",
      "# not run in CI: needs a Kubernetes cluster",
      "kubectl apply -k k8s/overlays/local",
      "```",
      "## Later",
      "```text",
      "not the output of the block above: a heading is between",
      "```",
      "- a list item:",
      "  ```sh",
      "  ./conclave agent --backend echo   # runs until Ctrl-C",
      "  ```",
      "  ```text",
      "  conclave-agent: registered agent=…",
      "  ```",
      "```json",
      "{\"a\": 1}",
      "```"));
    assertThat(page.problems()).isEmpty();
    assertThat(page.examples()).hasSize(3);
    DocPage.Example first = page.examples().get(0);
    assertThat(first.line()).isEqualTo(2);
    assertThat(first.notRunReason()).isEmpty();
    assertThat(first.runsUntilCtrlC()).isFalse();
    assertThat(first.shownOutput()).get().extracting(DocPage.Fence::lines).isEqualTo(List.of("token: principal=…"));
    DocPage.Example marked = page.examples().get(1);
    assertThat(marked.notRunReason()).contains("needs a Kubernetes cluster");
    assertThat(marked.shownOutput()).as("a heading separates it from the next text block").isEmpty();
    DocPage.Example agent = page.examples().get(2);
    assertThat(agent.lines()).containsExactly("./conclave agent --backend echo   # runs until Ctrl-C");
    assertThat(agent.runsUntilCtrlC()).isTrue();
    assertThat(agent.commands()).containsExactly("./conclave agent --backend echo");
    assertThat(agent.shownOutput()).get().extracting(DocPage.Fence::lines).isEqualTo(List.of("conclave-agent: registered agent=…"));
  }

  @Test
  void aPageCannotHideAShellExampleFromTheTest() {
    DocPage page = DocPage.parse("p.md", List.of(
      "```",
      "./conclave up",
      "```",
      "```console",
      "$ ./conclave up",
      "```",
      "```text",
      "$ ./conclave token --admin",
      "eyJ…",
      "```",
      "```sh",
      "./conclave agent   # runs until Ctrl-C",
      "```",
      "```sh",
      "# only a comment",
      "```"));
    assertThat(page.problems()).hasSize(5);
    assertThat(page.problems().get(0)).startsWith("p.md:1: a fenced block without a tag");
    assertThat(page.problems().get(1)).startsWith("p.md:4: a 'console' block");
    assertThat(page.problems().get(2)).startsWith("p.md:7: a 'text' block with '$ ' prompts");
    assertThat(page.problems().get(3)).startsWith("p.md:11: a block that runs until Ctrl-C must show");
    assertThat(page.problems().get(4)).startsWith("p.md:14: an 'sh' block with no command");
  }

  @Test
  void shownOutputMatchesInOrderWithWildcardsAndTheMovedPorts() {
    ShownOutput shown = new ShownOutput(List.of(
      "ready node=… grpc=localhost:50051 http=http://localhost:8080 admin-token=/…/data/admin.token took=…ms",
      "",
      "{\"type\":\"task_complete\",…}"), 18080, 15051);
    List<String> printed = List.of(
      "12:00:00.000 INFO  NodeRuntime - ready node=vm-1a2b grpc=localhost:15051 http=http://localhost:18080 admin-token=/tmp/x/data/admin.token took=812ms",
      "{\"type\":\"task_started\"}",
      "{\"type\":\"task_complete\",\"last_agent_message\":\"hi\"}");
    assertThat(shown.firstMissing(printed)).isEmpty();
    assertThat(shown.firstMissing(List.of(printed.get(2), printed.get(0)))).as("out of order")
      .contains("{\"type\":\"task_complete\",…}");
    assertThat(new ShownOutput(List.of("http=http://localhost:8080"), 18080, 15051).firstMissing(
      List.of("http=http://localhost:8080"))).as("the default port, where the node runs on the moved one").isPresent();
    assertThat(new ShownOutput(List.of("port 50051x"), 18080, 15051).firstMissing(List.of("port 50051x"))).isEmpty();
  }

  @Test
  void blocksOfAWalkthroughAreSetApartForTheTestThatRunsThem() {
    DocPage page = DocPage.parse("w.md", List.of(
      "```sh",
      "echo before",
      "```",
      "<!-- walkthrough:begin -->",
      "```sh",
      "./conclave up --data one",
      "```",
      "```sh",
      "./conclave agent --swarm",
      "```",
      "<!-- walkthrough:end -->",
      "```sh",
      "echo after",
      "```"));
    assertThat(page.examples()).extracting(DocPage.Example::line).containsExactly(1, 12);
    assertThat(page.walkthrough()).extracting(DocPage.Example::line).containsExactly(5, 8);
    assertThat(page.problems()).isEmpty();
  }
}
