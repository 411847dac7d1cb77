package dev.conclave.agent.client;

import dev.conclave.agent.Backoff;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.GatewayTls;
import dev.conclave.agent.internal.pack.PackConfig;
import dev.conclave.agent.pack.PackListener;
import dev.conclave.agent.pack.PackTool;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** Builds a {@link PackClient}. Endpoints, token, pack id and at least one tool are required; the rest has defaults. */
public final class PackClientBuilder {

  private final Vertx vertx;
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final List<PackTool> tools = new ArrayList<>();
  private final List<PackListener> listeners = new ArrayList<>();
  private String token;
  private String packId;
  private String version = "0.0.0";
  private int maxConcurrentCalls = 64;
  private Backoff backoff = Backoff.DEFAULT;
  private Duration connectTimeout = Duration.ofSeconds(5);
  private Duration registrationTimeout = Duration.ofSeconds(10);
  private Duration resultTimeout = Duration.ofSeconds(10);
  private Duration closeGrace = Duration.ofSeconds(5);
  private HttpClientOptions httpClientOptions;
  private GatewayTls tls;

  PackClientBuilder(Vertx vertx) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
  }

  /** Gateway endpoints, tried in rotation. */
  public PackClientBuilder endpoints(List<Endpoint> endpoints) {
    this.endpoints.clear();
    this.endpoints.addAll(endpoints);
    return this;
  }

  /** Gateway endpoints as {@code host:port}, tried in rotation. */
  public PackClientBuilder endpoints(String... endpoints) {
    return endpoints(Arrays.stream(endpoints).map(Endpoint::parse).toList());
  }

  /** A pack principal's token, sent as {@code authorization: Bearer <token>}. */
  public PackClientBuilder token(String token) {
    this.token = token;
    return this;
  }

  /** The pack's identity. Registering it again from elsewhere supersedes this client. */
  public PackClientBuilder packId(String packId) {
    this.packId = packId;
    return this;
  }

  /** The pack's version, sent in the manifest; {@code 0.0.0} by default. */
  public PackClientBuilder version(String version) {
    this.version = version;
    return this;
  }

  /** Adds a tool. */
  public PackClientBuilder tool(PackTool tool) {
    this.tools.add(Objects.requireNonNull(tool, "tool"));
    return this;
  }

  public PackClientBuilder listener(PackListener listener) {
    this.listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Calls that may run at once, across all tools; further calls are answered at once with the error
   * {@code "pack <id> is busy"}. Also bounds the results being delivered at once: beyond it the
   * client stops reading new calls until deliveries finish. 64 by default.
   */
  public PackClientBuilder maxConcurrentCalls(int max) {
    this.maxConcurrentCalls = max;
    return this;
  }

  public PackClientBuilder backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return this;
  }

  /** TCP connect timeout per attempt; 5 s by default. */
  public PackClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = timeout;
    return this;
  }

  /** How long after connecting the gateway may take to answer the registration; 10 s by default. */
  public PackClientBuilder registrationTimeout(Duration timeout) {
    this.registrationTimeout = timeout;
    return this;
  }

  /** Deadline of each {@code ToolResult} call that delivers a result; 10 s by default. */
  public PackClientBuilder resultTimeout(Duration timeout) {
    this.resultTimeout = timeout;
    return this;
  }

  /** How long {@link PackClient#close()} waits for results already being delivered; 5 s by default. */
  public PackClientBuilder closeGrace(Duration grace) {
    this.closeGrace = grace;
    return this;
  }

  /** Connects over TLS (plaintext without it): which CAs to trust, and a client certificate if the gateway asks for one. */
  public PackClientBuilder tls(GatewayTls tls) {
    this.tls = tls;
    return this;
  }

  /** Transport options, for example TLS; the SDK sets the connect timeout and HTTP/2 on a copy. */
  public PackClientBuilder httpClientOptions(HttpClientOptions options) {
    this.httpClientOptions = options;
    return this;
  }

  /** @throws IllegalArgumentException naming the first missing or invalid setting */
  public PackClient build() {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one gateway endpoint is required");
    }
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a bearer token (of a pack principal) is required");
    }
    if (packId == null || packId.isBlank()) {
      throw new IllegalArgumentException("a pack id is required");
    }
    if (tools.isEmpty()) {
      throw new IllegalArgumentException("pack " + packId + " needs at least one tool");
    }
    Set<String> names = new HashSet<>();
    for (PackTool t : tools) {
      if (!names.add(t.name())) {
        throw new IllegalArgumentException("pack " + packId + " offers tool " + t.name() + " twice");
      }
    }
    if (maxConcurrentCalls < 1) {
      throw new IllegalArgumentException("maxConcurrentCalls must be at least 1, got " + maxConcurrentCalls);
    }
    positive(connectTimeout, "connectTimeout");
    positive(registrationTimeout, "registrationTimeout");
    positive(resultTimeout, "resultTimeout");
    positive(closeGrace, "closeGrace");
    return new PackClient(new PackConfig(vertx, endpoints, token, packId, version == null ? "" : version, tools,
      listeners, maxConcurrentCalls, backoff, connectTimeout, registrationTimeout, resultTimeout, closeGrace,
      transport()));
  }

  /** The transport options with TLS applied, on a copy of what {@link #httpClientOptions} was given. */
  private HttpClientOptions transport() {
    if (tls == null) {
      return httpClientOptions;
    }
    return tls.applyTo(httpClientOptions == null ? new HttpClientOptions() : new HttpClientOptions(httpClientOptions));
  }

  private static void positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be a positive duration");
    }
  }
}
