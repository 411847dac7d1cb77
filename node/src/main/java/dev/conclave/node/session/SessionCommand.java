package dev.conclave.node.session;

import dev.conclave.cli.ClientSettings;
import dev.conclave.cli.ContextStore;
import dev.conclave.cli.Target;
import dev.conclave.cli.Targets;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code conclave session --agent X}: drives an agent through the session protocol (seed 004) with
 * newline-delimited JSON: submissions on stdin, events on stdout, one JSON object per line.
 * docs/sessions.md.
 */
@Command(name = "session", mixinStandardHelpOptions = true,
  description = "Session protocol over NDJSON: submissions ({\"id\",\"op\"}) on stdin, events ({\"id\",\"event_id\",\"msg\"}) on stdout.")
public final class SessionCommand implements Callable<Integer> {

  /** Exit codes (docs/sessions.md): 0 stdin ended and the server went quiet; 2 bad flags; 3 no node answered, or none took the session back; 4 configure_session was refused. */
  static final int EXIT_NO_NODE = 3;
  static final int EXIT_CONFIGURE_FAILED = 4;
  private static final long CONFIGURE_WAIT_MS = 15_000;

  @Option(names = "--agent", description = "The agent to drive (configure_session's agent_id).")
  String agent;

  @Option(names = "--agent-query", description = "Pick the agent by an AgentQuery instead, as JSON: {\"primary_type\":\"Tool\"}.")
  String agentQuery;

  @Option(names = "--conversation", description = "The conversation to follow and send to (default: the agent's own).")
  String conversation;

  @Option(names = "--url", split = ",", description = "Node HTTP base URLs, tried in turn on connect and reconnect"
    + " (default $CONCLAVE_URL, else the context's, else http://127.0.0.1:$CONCLAVE_HTTP_PORT, or :8080;"
    + " https://localhost:… when CONCLAVE_TLS is on).")
  List<URI> urls;

  @Option(names = "--ca-file", description = "PEM file of the CA certificates trusted for https:// URLs"
    + " (default: $CONCLAVE_TLS_CA_FILE, else the context's, else the system's trust store).")
  Path caFile;

  @Option(names = "--token-file", description = "File holding the bearer token (default: $CONCLAVE_TOKEN, else the context's"
    + " token file, else $CONCLAVE_DATA_DIR/admin.token).")
  Path tokenFile;

  @Option(names = "--context", description = "Use this context instead of the current one (./conclave context list, docs/cli.md).")
  String context;

  @Option(names = "--linger-ms", defaultValue = "1000", description = "After stdin ends and the tasks its user_input"
    + " submissions started have ended, keep printing until the server is quiet this long.")
  long lingerMs;

  @Override
  public Integer call() throws Exception {
    if ((agent == null) == (agentQuery == null)) {
      System.err.println("conclave session: give --agent or --agent-query (one of them)");
      return 2;
    }
    JsonObject configure = new JsonObject().put("type", "configure_session");
    if (agent != null) {
      configure.put("agent_id", agent);
    } else {
      try {
        configure.put("agent_query", new JsonObject(agentQuery));
      } catch (DecodeException e) {
        System.err.println("conclave session: --agent-query must be a JSON object");
        return 2;
      }
    }
    Optional.ofNullable(conversation).ifPresent(c -> configure.put("conversation_key", c));
    Target target = Targets.resolve(new Targets.Flags(urls, tokenFile, caFile, context), ClientSettings.from(System.getenv()),
      ContextStore.forUser(System.getenv()));
    String token = target.token();
    List<URI> nodes = target.urls();
    Optional<Path> ca = target.caFile();
    Vertx vertx = Vertx.vertx();
    try {
      NdjsonSession session = new NdjsonSession(vertx, nodes, token, configure, System.out, () -> System.exit(EXIT_NO_NODE), ca);
      if (!session.connect()) {
        System.err.println("conclave session: no node answered at " + nodes);
        return EXIT_NO_NODE;
      }
      JsonObject answer = session.awaitConfigured(CONFIGURE_WAIT_MS);
      if (!"session_configured".equals(answer.getString("type"))) {
        // the answer is on stdout too (as every event); stderr says why the command stops
        System.err.println("conclave session: configure_session failed: " + answer.getString("code", "error") + ": "
          + answer.getString("message", answer.encode()));
        session.close();
        return EXIT_CONFIGURE_FAILED;
      }
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (!line.isBlank()) {
            session.submit(line.strip());
          }
        }
      }
      session.finish(lingerMs);
      return 0;
    } finally {
      vertx.close();
    }
  }
}
