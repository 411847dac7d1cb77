package dev.conclave.agent.client;

import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.Backoff;
import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.Feature;
import dev.conclave.agent.GatewayTls;
import dev.conclave.agent.ShutdownPolicy;
import dev.conclave.agent.internal.ClientConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/** Builds an {@link AgentClient}. Endpoints, token and handler are required; the rest has defaults. */
public final class AgentClientBuilder {

  private final Vertx vertx;
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final List<ConnectionListener> listeners = new ArrayList<>();
  private String token;
  private String agentId = UUID.randomUUID().toString();
  private String name;
  private List<String> capabilities = List.of("chat");
  private Set<Feature> features = EnumSet.noneOf(Feature.class);
  private AgentEnvironment environment = AgentEnvironment.empty();
  private AgentHandler handler;
  private Duration heartbeatInterval = Duration.ofSeconds(15);
  private Backoff backoff = Backoff.DEFAULT;
  private ShutdownPolicy shutdownPolicy = ShutdownPolicy.RECONNECT;
  private Duration connectTimeout = Duration.ofSeconds(5);
  private Duration registrationTimeout = Duration.ofSeconds(10);
  private Duration registrationQueueTimeout = Duration.ofSeconds(120);
  private Duration closeGrace = Duration.ofSeconds(5);
  private Duration packToolTimeout = Duration.ofSeconds(30);
  private int maxQueuedWrites = 256;
  private int maxQueuedMessages = 16;
  private int alreadyExistsRetries = 5;
  private HttpClientOptions httpClientOptions;
  private GatewayTls tls;

  AgentClientBuilder(Vertx vertx) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
  }

  /** Gateway endpoints, tried in rotation. */
  public AgentClientBuilder endpoints(List<Endpoint> endpoints) {
    this.endpoints.clear();
    this.endpoints.addAll(endpoints);
    return this;
  }

  /** Gateway endpoints as {@code host:port}, tried in rotation. */
  public AgentClientBuilder endpoints(String... endpoints) {
    return endpoints(Arrays.stream(endpoints).map(Endpoint::parse).toList());
  }

  /** Bearer token sent as {@code authorization: Bearer <token>}. */
  public AgentClientBuilder token(String token) {
    this.token = token;
    return this;
  }

  /** Stable identity across reconnects; a random UUID by default. */
  public AgentClientBuilder agentId(String agentId) {
    this.agentId = agentId;
    return this;
  }

  /** Display name; the agent id by default. */
  public AgentClientBuilder name(String name) {
    this.name = name;
    return this;
  }

  /** Capability tags; {@code ["chat"]} by default. */
  public AgentClientBuilder capabilities(String... capabilities) {
    this.capabilities = List.of(capabilities);
    return this;
  }

  public AgentClientBuilder features(Feature... features) {
    this.features = features.length == 0 ? EnumSet.noneOf(Feature.class) : EnumSet.copyOf(Arrays.asList(features));
    return this;
  }

  public AgentClientBuilder environment(AgentEnvironment environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
    return this;
  }

  public AgentClientBuilder handler(AgentHandler handler) {
    this.handler = handler;
    return this;
  }

  public AgentClientBuilder listener(ConnectionListener listener) {
    this.listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /** How often a heartbeat goes out while registered; 15 s by default. */
  public AgentClientBuilder heartbeatInterval(Duration interval) {
    this.heartbeatInterval = interval;
    return this;
  }

  public AgentClientBuilder backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return this;
  }

  /** What to do after honouring a gateway Shutdown; {@link ShutdownPolicy#RECONNECT} by default. */
  public AgentClientBuilder shutdownPolicy(ShutdownPolicy policy) {
    this.shutdownPolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /** TCP connect timeout per attempt; 5 s by default. */
  public AgentClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = timeout;
    return this;
  }

  /** How long after connecting the Welcome may take; 10 s by default. */
  public AgentClientBuilder registrationTimeout(Duration timeout) {
    this.registrationTimeout = timeout;
    return this;
  }

  /**
   * How long the Welcome may take once the gateway answered the stream with its headers: it has the
   * stream in hand (Conclave's gateway answers each stream at once) and registers agents in turn, so
   * after a node is lost, when its agents all register on the survivors at once, a registration can
   * wait its turn for a while. Waiting keeps the agent's place; giving up would start it again at the
   * back of another node's queue, and the node's work on it would be wasted. 120 s by default;
   * {@link #registrationTimeout} still bounds a gateway that never answers.
   */
  public AgentClientBuilder registrationQueueTimeout(Duration timeout) {
    this.registrationQueueTimeout = timeout;
    return this;
  }

  /**
   * How long closing waits: for the gateway to end a half-closed stream, and in {@link AgentClient#stop()}
   * for the handler to finish after cancellation; 5 s by default.
   */
  public AgentClientBuilder closeGrace(Duration grace) {
    this.closeGrace = grace;
    return this;
  }

  /** Pack tool timeout when the tool advertises none; 30 s by default. */
  public AgentClientBuilder packToolTimeout(Duration timeout) {
    this.packToolTimeout = timeout;
    return this;
  }

  /** Events that may wait for a slow gateway reader before writes fail; 256 by default. */
  public AgentClientBuilder maxQueuedWrites(int max) {
    this.maxQueuedWrites = max;
    return this;
  }

  /** Messages that may wait behind the one in progress before more are refused; 16 by default. */
  public AgentClientBuilder maxQueuedMessages(int max) {
    this.maxQueuedMessages = max;
    return this;
  }

  /** Consecutive {@code ALREADY_EXISTS} rejections retried before giving up; 5 by default. */
  public AgentClientBuilder alreadyExistsRetries(int retries) {
    this.alreadyExistsRetries = retries;
    return this;
  }

  /** Connects over TLS (plaintext without it): which CAs to trust, and a client certificate if the gateway asks for one. */
  public AgentClientBuilder tls(GatewayTls tls) {
    this.tls = tls;
    return this;
  }

  /** Transport options, for example TLS; the SDK sets the connect timeout on a copy. */
  public AgentClientBuilder httpClientOptions(HttpClientOptions options) {
    this.httpClientOptions = options;
    return this;
  }

  /** @throws IllegalArgumentException naming the first missing or invalid setting */
  public AgentClient build() {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("at least one gateway endpoint is required");
    }
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a bearer token is required");
    }
    if (agentId == null || agentId.isBlank()) {
      throw new IllegalArgumentException("agentId must not be blank");
    }
    if (handler == null) {
      throw new IllegalArgumentException("a handler is required");
    }
    positive(heartbeatInterval, "heartbeatInterval");
    positive(connectTimeout, "connectTimeout");
    positive(registrationTimeout, "registrationTimeout");
    positive(registrationQueueTimeout, "registrationQueueTimeout");
    positive(closeGrace, "closeGrace");
    positive(packToolTimeout, "packToolTimeout");
    if (maxQueuedWrites < 1 || maxQueuedMessages < 0 || alreadyExistsRetries < 0) {
      throw new IllegalArgumentException("maxQueuedWrites must be at least 1; maxQueuedMessages and alreadyExistsRetries not negative");
    }
    String displayName = name == null || name.isBlank() ? agentId : name;
    return new AgentClient(new ClientConfig(vertx, endpoints, token, agentId, displayName, capabilities, features,
      environment, handler, listeners, heartbeatInterval, backoff, shutdownPolicy, connectTimeout, registrationTimeout,
      registrationQueueTimeout, closeGrace, packToolTimeout, maxQueuedWrites, maxQueuedMessages, alreadyExistsRetries, transport()));
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
