package dev.conclave.e2e.console;

import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.Feature;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.ToolState;
import dev.conclave.agent.client.AgentClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * An agent in the test's JVM (the Java agent SDK) whose answers the test scripts by the message:
 * <ul>
 *   <li>{@code stream <label>}: {@link #STREAMED} text chunks 250 ms apart; after the first half it
 *       waits until the test {@link #release releases} the label (20 s at most), so the test sees
 *       the reply before it is done;</li>
 *   <li>{@code burst <label>}: {@link #STREAMED} chunks 100 ms apart, then done;</li>
 *   <li>{@code approve <label>}: calls tool {@code tool-<label>} as the agent program does
 *       (tool_use, state awaiting_approval, the approval request; once approved running, the
 *       result and completed, else denied), reports the decision to the test, then says what it
 *       was and ends;</li>
 *   <li>anything else: one echo chunk.</li>
 * </ul>
 */
final class ScriptedAgent implements AutoCloseable {

  static final int STREAMED = 6;

  private final Vertx vertx = Vertx.vertx();
  private final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<ApprovalDecision>> decisions = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<String>> received = new ConcurrentHashMap<>();
  private final AgentClient client;

  ScriptedAgent(String agentId, String token, int grpcPort) {
    client = AgentClient.builder(vertx)
      .endpoints("127.0.0.1:" + grpcPort)
      .token(token)
      .agentId(agentId)
      .name("Console e2e agent")
      .capabilities("chat", "tools")
      .features(Feature.CANCELLATION, Feature.TOOL_STATES)
      .environment(AgentEnvironment.detect().withBackend("scripted").withWorkspaces(List.of("console-e2e")))
      .handler(this::handle)
      .build();
  }

  /** Connects and registers; returns the node that holds the stream. */
  String start(Duration limit) throws Exception {
    return client.start().await(limit.toMillis(), TimeUnit.MILLISECONDS).serverId();
  }

  /** The chunk {@code i} (1-based) of a streamed reply. */
  static String chunk(String label, int i) {
    return label + "-chunk-" + i + " ";
  }

  /** The whole streamed reply, as the page shows it. */
  static String reply(String label, int chunks) {
    return IntStream.rangeClosed(1, chunks).mapToObj(i -> chunk(label, i)).reduce("", String::concat);
  }

  /** Lets a {@code stream} reply go on past its first half. */
  void release(String label) {
    gate(label).complete(null);
  }

  /** Completes with the request id once a message with this content reached the agent. */
  CompletableFuture<String> received(String content) {
    return received.computeIfAbsent(content, k -> new CompletableFuture<>());
  }

  /** Completes with the human's decision on tool {@code tool-<label>}. */
  CompletableFuture<ApprovalDecision> decision(String label) {
    return decisions.computeIfAbsent(label, k -> new CompletableFuture<>());
  }

  private CompletableFuture<Void> gate(String label) {
    return gates.computeIfAbsent(label, k -> new CompletableFuture<>());
  }

  private Future<Void> handle(IncomingMessage message, ResponseStream out) {
    received(message.content()).complete(message.requestId());
    String[] words = message.content().split(" ", 2);
    String label = words.length > 1 ? words[1] : "";
    switch (words[0]) {
      case "stream":
        return chunks(out, label, 1, STREAMED / 2, 250)
          .compose(v -> Future.fromCompletionStage(gate(label).orTimeout(20, TimeUnit.SECONDS))
            .recover(e -> Future.succeededFuture()))
          .compose(v -> chunks(out, label, STREAMED / 2 + 1, STREAMED, 250))
          .compose(v -> out.done(reply(label, STREAMED)));
      case "many":
        // a long reply: the given number of text chunks, as fast as the stream takes them
        return many(out, 1, Integer.parseInt(label));
      case "burst":
        return chunks(out, label, 1, STREAMED, 100).compose(v -> out.done(reply(label, STREAMED)));
      case "approve": {
        String tool = "tool-" + label;
        String input = "{\"command\":\"ls -la /srv/" + label + "\"}";
        return out.toolUse(tool, "shell", input)
          .compose(v -> out.toolState(tool, ToolState.AWAITING_APPROVAL, null))
          .compose(v -> out.requestApproval(tool, "shell", input))
          .compose(d -> {
            decision(label).complete(d);
            Future<Void> ran = d.approved()
              ? out.toolState(tool, ToolState.RUNNING, null)
                .compose(v -> out.toolResult(tool, "total 8\ndrwxr-xr-x 2 app app 4096 notes\n", false))
                .compose(v -> out.toolState(tool, ToolState.COMPLETED, null))
              : out.toolState(tool, ToolState.DENIED, null);
            return ran.compose(v -> out.text("The tool was " + (d.approved() ? "approved" : "denied") + ". "));
          })
          .compose(v -> out.done());
      }
      default:
        return out.text("echo: " + message.content()).compose(v -> out.done());
    }
  }

  private Future<Void> chunks(ResponseStream out, String label, int from, int to, long spacingMs) {
    Future<Void> chain = Future.succeededFuture();
    for (int i = from; i <= to; i++) {
      int n = i;
      chain = chain.compose(v -> pause(n == from ? 0 : spacingMs)).compose(v -> out.text(chunk(label, n)));
    }
    return chain;
  }

  /** Chunks {@code next..total}, a hundred written at a time, then done. */
  private Future<Void> many(ResponseStream out, int next, int total) {
    if (next > total) {
      return out.done();
    }
    int end = Math.min(total, next + 99);
    Future<Void> last = Future.succeededFuture();
    for (int i = next; i <= end; i++) {
      last = out.text(chunk("many", i));
    }
    return last.compose(v -> many(out, end + 1, total));
  }

  private Future<Void> pause(long ms) {
    if (ms == 0) {
      return Future.succeededFuture();
    }
    Promise<Void> p = Promise.promise();
    vertx.setTimer(ms, id -> p.complete());
    return p.future();
  }

  @Override
  public void close() {
    try {
      client.stop().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("the scripted agent did not stop cleanly: " + e);
    }
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // best effort, as the stop above
    }
  }
}
