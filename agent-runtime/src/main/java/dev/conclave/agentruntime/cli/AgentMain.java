package dev.conclave.agentruntime.cli;

/** {@code main} of the agent program when it runs on its own ({@code java -cp … AgentMain …}). */
public final class AgentMain {

  private AgentMain() {
  }

  public static void main(String[] args) {
    System.exit(AgentCommand.commandLine().execute(args));
  }
}
