package dev.conclave.agent.internal;

import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.Backoff;
import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.Feature;
import dev.conclave.agent.ShutdownPolicy;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Everything an {@code AgentClient} was built with; validated by the builder. */
public record ClientConfig(
  Vertx vertx,
  List<Endpoint> endpoints,
  String token,
  String agentId,
  String name,
  List<String> capabilities,
  Set<Feature> features,
  AgentEnvironment environment,
  AgentHandler handler,
  List<ConnectionListener> listeners,
  Duration heartbeatInterval,
  Backoff backoff,
  ShutdownPolicy shutdownPolicy,
  Duration connectTimeout,
  Duration registrationTimeout,
  Duration registrationQueueTimeout,
  Duration closeGrace,
  Duration packToolTimeout,
  int maxQueuedWrites,
  int maxQueuedMessages,
  int alreadyExistsRetries,
  HttpClientOptions httpClientOptions) {

  public ClientConfig {
    endpoints = List.copyOf(endpoints);
    capabilities = List.copyOf(capabilities);
    features = Set.copyOf(features);
    listeners = List.copyOf(listeners);
  }

  public boolean declares(Feature feature) {
    return features.contains(feature);
  }
}
