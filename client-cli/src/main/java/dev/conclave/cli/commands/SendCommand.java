package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.LiveSession;
import dev.conclave.cli.output.Format;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code conclave send AGENT TEXT}: one message to an agent, through the session WebSocket as the
 * console sends it, and its answer streamed as it comes. Exit 0 when the agent's task completes, 1
 * when it ends in an error, 130 when Ctrl-C cancelled it (the {@code interrupt} op: the gateway
 * cancels the request at the agent, or ends it for agents that cannot cancel).
 */
@Command(name = "send", mixinStandardHelpOptions = true,
  description = "Send a message to an agent and stream its answer: text as text, tool calls, approvals and questions "
    + "as short lines. Ctrl-C cancels the request.",
  footer = {"", "Example:", "  conclave send echo-1 \"hello\"", "  echo: hello", "",
    "Exit codes: 0 done, 1 the task ended in an error (or the server refused), 2 usage, 3 no node, 4 token refused, 130 cancelled."})
public final class SendCommand implements Callable<Integer> {

  /** How long a Ctrl-C waits for the cancel to be confirmed before the process ends anyway. */
  private static final long CANCEL_WAIT_MS = 10_000;

  @Parameters(index = "0", description = "The agent's id (the one it registered with).")
  String agent;

  @Parameters(index = "1..*", arity = "1..*", description = "The message; several words are joined with spaces.")
  List<String> words;

  @Option(names = "--conversation", description = "The conversation to send in (default: the agent's own).")
  String conversation;

  @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
    description = "table (default: text as it streams) or json (every session event, one JSON object per line).")
  Format format;

  @Mixin
  TargetOptions target;

  private volatile boolean running;
  private final CountDownLatch ended = new CountDownLatch(1);

  @Override
  public Integer call() {
    if (format == Format.yaml) {
      throw CliFailure.usage("send prints table (text) or json (one event per line)");
    }
    try (Api api = target.api(); LiveSession session = new LiveSession(api)) {
      JsonObject configure = new JsonObject().put("agent_id", agent);
      if (conversation != null) {
        configure.put("conversation_key", conversation);
      }
      session.configure(configure);
      String id = "send-" + UUID.randomUUID().toString().substring(0, 8);
      Thread hook = new Thread(() -> cancel(session, id), "conclave-send-cancel");
      Runtime.getRuntime().addShutdownHook(hook);
      running = true;
      session.submit(id, new JsonObject().put("type", "user_input")
        .put("items", new JsonArray().add(new JsonObject().put("type", "text").put("text", String.join(" ", words)))));
      try {
        return follow(session, id);
      } finally {
        running = false;
        ended.countDown();
      }
    }
  }

  private int follow(LiveSession session, String id) {
    EventPrinter printer = new EventPrinter(System.out, false);
    while (true) {
      JsonObject frame = session.next(Long.MAX_VALUE);
      JsonObject msg = frame.getJsonObject("msg", new JsonObject());
      if (LiveSession.closed(msg)) {
        printer.endLine();
        throw LiveSession.closedFailure(msg);
      }
      if (!id.equals(frame.getString("id"))) {
        continue;
      }
      if (format == Format.json) {
        System.out.println(frame.encode());
        System.out.flush();
      } else {
        printer.print(msg);
      }
      String type = msg.getString("type", "");
      if ("task_complete".equals(type)) {
        return ExitCodes.OK;
      }
      if ("error".equals(type)) {
        printer.endLine();
        if (msg.getBoolean("cancelled", false)) {
          return ExitCodes.CANCELLED;
        }
        if (msg.getString("code") != null) {
          throw LiveSession.errorFailure(msg);
        }
        throw new CliFailure(ExitCodes.SERVER_ERROR, "the task ended in an error: " + msg.getString("message", ""));
      }
    }
  }

  /**
   * Ctrl-C (SIGINT) runs the shutdown hooks: while the task runs, interrupt it and wait until the
   * cancel is confirmed (the task's {@code error} event), then end the process with 130.
   */
  private void cancel(LiveSession session, String id) {
    if (!running) {
      return;
    }
    try {
      session.submit("interrupt-" + id, new JsonObject().put("type", "interrupt"));
      System.err.println("conclave send: cancelling the request");
      ended.await(CANCEL_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (RuntimeException | InterruptedException e) {
      // the process ends anyway; the gateway ends a request whose agent does not confirm the cancel
    }
    System.out.flush();
    Runtime.getRuntime().halt(ExitCodes.CANCELLED);
  }
}
