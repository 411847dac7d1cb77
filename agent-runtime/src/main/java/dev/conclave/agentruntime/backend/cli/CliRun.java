package dev.conclave.agentruntime.backend.cli;

import io.vertx.core.Future;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One prepared CLI run: what to start and what to release when it is over.
 *
 * @param command the command line
 * @param env variables added to the child's environment (on top of the gateway's secrets)
 * @param mapper reads the child's output lines (and, for a conversation over stdin, writes to it)
 * @param conversational the child reads requests on its standard input, which stays open
 * @param release called once the child exited (or could not start): closes what the run opened
 */
public record CliRun(List<String> command, Map<String, String> env, StreamMapper mapper, boolean conversational,
                     Supplier<Future<Void>> release) {

  public CliRun {
    command = List.copyOf(command);
    env = Map.copyOf(env);
  }
}
