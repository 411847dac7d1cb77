package dev.conclave.agent;

import io.vertx.core.Future;

/**
 * A reference handler for tests and benchmarks: answers each message with one text chunk echoing
 * its content, a usage event (one "token" per whitespace-separated word) and {@code done}.
 */
public final class EchoHandler implements AgentHandler {

  private final String prefix;

  public EchoHandler() {
    this("echo: ");
  }

  public EchoHandler(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Future<Void> handle(IncomingMessage message, ResponseStream response) {
    String answer = prefix + message.content();
    int tokens = words(message.content());
    return response.text(answer)
      .compose(v -> response.usage(TokenUsage.of(tokens, tokens)))
      .compose(v -> response.done(answer));
  }

  static int words(String s) {
    String t = s.strip();
    return t.isEmpty() ? 0 : t.split("\\s+").length;
  }
}
