package dev.conclave.agent.examples;

// The example of the SDK README, verbatim: ReadmeExamplesTest runs it.
import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.Feature;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.client.AgentClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

public final class ShoutingAgent implements AgentHandler {

  @Override
  public Future<Void> handle(IncomingMessage message, ResponseStream response) {
    String answer = message.content().toUpperCase();
    return response.thinking("shouting")
      .compose(v -> response.text(answer))
      .compose(v -> response.usage(TokenUsage.of(message.content().length(), answer.length())))
      .compose(v -> response.done(answer));
  }

  public static void main(String[] args) {
    Vertx vertx = Vertx.vertx();
    AgentClient client = AgentClient.builder(vertx)
      .endpoints(System.getenv().getOrDefault("GATEWAYS", "localhost:50051").split(","))
      .token(System.getenv("AGENT_TOKEN"))
      .agentId("6f1c2a9e-3b1d-4c7e-9a55-0d2b7f1e8c11")   // keep it stable across restarts
      .name("shouting-agent")
      .capabilities("chat")
      .features(Feature.TOKEN_USAGE, Feature.CANCELLATION)
      .environment(AgentEnvironment.detect().withBackend("direct"))
      .handler(new ShoutingAgent())
      .build();

    client.start().onComplete(
      session -> System.out.println("registered on " + session.serverId() + " as " + session.instanceId()),
      failure -> {
        System.err.println("the gateway refused this agent: " + failure.getMessage());
        vertx.close();
      });
    client.stopped().onComplete(ar -> vertx.close());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> client.stop().await()));
  }
}
