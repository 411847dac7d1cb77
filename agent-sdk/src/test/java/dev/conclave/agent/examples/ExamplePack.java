package dev.conclave.agent.examples;

// The pack example of the SDK README, verbatim from the first import on: PackReadmeExampleTest checks and runs it.
import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.pack.PackListener;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.agent.pack.PackToolException;
import dev.conclave.agent.pack.ToolInvocation;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Locale;
import java.util.Map;

/** A tool pack with one tool, {@code get_weather}, that knows the temperature of three cities. */
public final class ExamplePack {

  private static final Map<String, Integer> CELSIUS = Map.of("paris", 21, "oslo", 9, "cairo", 34);

  /** The tool's handler. It runs on the pack's event loop: never block in it. */
  static Future<String> getWeather(ToolInvocation call) {
    String city = call.input().getString("city", "");
    Integer celsius = CELSIUS.get(city.toLowerCase(Locale.ROOT));
    if (celsius == null) {
      // the agent sees this message as the tool's error
      return Future.failedFuture(new PackToolException("unknown city: " + city));
    }
    return Future.succeededFuture(new JsonObject().put("city", city).put("celsius", celsius).encode());
  }

  public static PackClient create(Vertx vertx, String[] endpoints, String token) {
    PackTool getWeather = PackTool.builder("get_weather")
      .description("The current temperature in a city, in degrees Celsius")
      .inputSchema(new JsonObject()
        .put("type", "object")
        .put("properties", new JsonObject().put("city", new JsonObject().put("type", "string")))
        .put("required", new JsonArray().add("city")))
      .timeoutSeconds(10)
      .handler(ExamplePack::getWeather)
      .build();
    return PackClient.builder(vertx)
      .endpoints(endpoints)
      .token(token)
      .packId("weather")            // keep it stable: it is the pack's identity
      .version("1.0.0")
      .tool(getWeather)
      .listener(new PackListener() {
        @Override
        public void onRegistered(PackRegistration registration, boolean reconnect) {
          System.out.println("live: " + registration.liveTools() + ", rejected: " + registration.rejectedTools());
        }
      })
      .build();
  }

  public static void main(String[] args) {
    Vertx vertx = Vertx.vertx();
    PackClient pack = create(vertx,
      System.getenv().getOrDefault("GATEWAYS", "localhost:50051").split(","),
      System.getenv("PACK_TOKEN"));
    pack.start().onFailure(failure -> System.err.println("the pack stopped before registering: " + failure.getMessage()));
    pack.closed().onComplete(ar -> vertx.close());   // superseded, refused for good, or closed
    Runtime.getRuntime().addShutdownHook(new Thread(() -> pack.close().await()));
  }
}
