package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.LiveSession;
import dev.conclave.cli.output.Format;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * {@code conclave tail CONVERSATION}: follows a conversation live through the session WebSocket, as
 * the console does, until interrupted; {@code --since} replays from a session event id first (the
 * protocol's resume: no gap, no duplicate). Ctrl-C is how a follower ends, so it exits 0 (as
 * {@code ./conclave agent} does); a connection the node closes is exit 3 (4 for revoked access).
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
  description = "Follow a conversation live until Ctrl-C (exit 0): new events only, or every event after --since.",
  footer = {"", "Example:", "  conclave tail echo-1 --since 0", "  conclave tail swarm:3f1c… --agent worker-1 -o json"})
public final class TailCommand implements Callable<Integer> {

  @Parameters(index = "0", description = "The conversation's key (an agent's own conversation is keyed by the agent's id).")
  String conversation;

  @Option(names = "--agent", description = "The conversation's agent (default: the key, for an agent's own conversation).")
  String agent;

  @Option(names = "--since", paramLabel = "EVENT_ID", description = "Replay every event after this session event id"
    + " (\"12.0\", or a ledger seq such as 12; 0 for the whole conversation), then follow.")
  String since;

  @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
    description = "table (default: text and short lines) or json (every session event, one JSON object per line).")
  Format format;

  @Mixin
  TargetOptions target;

  private volatile boolean following;

  @Override
  public Integer call() {
    if (format == Format.yaml) {
      throw CliFailure.usage("tail prints table (text) or json (one event per line)");
    }
    try (Api api = target.api(); LiveSession session = new LiveSession(api)) {
      JsonObject configure = new JsonObject().put("agent_id", agent == null ? conversation : agent).put("conversation_key", conversation);
      if (since != null) {
        configure.put("last_event_id", since);
      }
      session.configure(configure);
      EventPrinter printer = new EventPrinter(System.out, true);
      following = true;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        // Ctrl-C while following: the normal end
        if (following) {
          printer.endLine();
          System.out.flush();
          Runtime.getRuntime().halt(0);
        }
      }, "conclave-tail-end"));
      while (true) {
        JsonObject frame = session.next(Long.MAX_VALUE);
        JsonObject msg = frame.getJsonObject("msg", new JsonObject());
        if (LiveSession.closed(msg)) {
          following = false;
          printer.endLine();
          throw LiveSession.closedFailure(msg);
        }
        if (format == Format.json) {
          System.out.println(frame.encode());
          System.out.flush();
        } else {
          printer.print(msg);
        }
      }
    }
  }
}
