package dev.conclave.agent.internal.pack;

import dev.conclave.agent.Backoff;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.pack.PackListener;
import dev.conclave.agent.pack.PackTool;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

import java.time.Duration;
import java.util.List;

/** Everything a {@code PackClient} was built with; validated by the builder. */
public record PackConfig(
  Vertx vertx,
  List<Endpoint> endpoints,
  String token,
  String packId,
  String version,
  List<PackTool> tools,
  List<PackListener> listeners,
  int maxConcurrentCalls,
  Backoff backoff,
  Duration connectTimeout,
  Duration registrationTimeout,
  Duration resultTimeout,
  Duration closeGrace,
  HttpClientOptions httpClientOptions) {

  public PackConfig {
    endpoints = List.copyOf(endpoints);
    tools = List.copyOf(tools);
    listeners = List.copyOf(listeners);
  }

  String authorization() {
    return "Bearer " + token;
  }
}
