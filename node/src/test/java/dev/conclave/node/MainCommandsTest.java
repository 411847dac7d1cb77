package dev.conclave.node;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node's own commands (serve, token, postgres, restore, dev-certs) run without the agent and client
 * commands built (issue 45: building them was class loading a start and a token paid for); every
 * other invocation, the top-level help included, gets all of them.
 */
class MainCommandsTest {

  @Test
  void theNodesOwnCommandsRunWithoutTheOthersBuilt() {
    for (String[] args : new String[][] {{}, {"serve"}, {"token", "--admin"}, {"postgres"}, {"restore", "--help"}, {"dev-certs", "--help"}}) {
      assertThat(Main.commandLine(args).getSubcommands().keySet()).as("commands built for %s", String.join(" ", args))
        .containsExactlyInAnyOrder("serve", "postgres", "token", "restore", "dev-certs");
    }
  }

  @Test
  void everyOtherInvocationGetsEveryCommand() {
    for (String[] args : new String[][] {{"--help"}, {"agent", "--help"}, {"session"}, {"send", "a", "b"}, {"completion", "bash"},
        {"no-such-command"}}) {
      assertThat(Main.commandLine(args).getSubcommands().keySet()).as("commands built for %s", String.join(" ", args))
        .contains("serve", "token", "agent", "session", "send", "agents", "context");
    }
  }

  @Test
  void aPlainStartBuildsNoCommandLineAtAll() {
    assertThat(Main.servesPlainly(new String[] {})).isTrue();
    assertThat(Main.servesPlainly(new String[] {"serve"})).isTrue();
    // anything to parse goes through picocli, which prints help and refuses what it does not know
    for (String[] args : new String[][] {{"serve", "--help"}, {"serve", "--version"}, {"serve", "extra"}, {"--help"}, {"token"}}) {
      assertThat(Main.servesPlainly(args)).as("plain for %s", String.join(" ", args)).isFalse();
    }
  }

  @Test
  void aNodeCommandStillParsesAsBefore() {
    assertThat(Main.commandLine(new String[] {"token", "--help"}).execute("token", "--help")).isZero();
  }
}
