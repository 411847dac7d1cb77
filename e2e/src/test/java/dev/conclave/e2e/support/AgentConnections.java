package dev.conclave.e2e.support;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.grpc.client.GrpcClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * gRPC clients for thousands of agents in one benchmark JVM, shaped like agents in the field: each
 * agent's stream on a connection of its own ({@code streamsPerConnection} 1), or a given number of
 * streams per connection to see what a connection costs apart from its streams. The connections
 * leave from several loopback source addresses (127.0.1.1, 127.0.1.2, …, all of 127.0.0.0/8 is
 * loopback on Linux), at most {@value #CONNECTIONS_PER_SOURCE} from each, so that the ephemeral
 * ports (about 28,000 per source and destination) are never what bounds the number of agents. One
 * HTTP client per source address, not one per agent: a client per agent is a pool, a cleaner timer
 * and an endpoint map per agent in the benchmark's own JVM.
 *
 * <p>Agent {@code i} uses {@link #forAgent}{@code (i)}; the connections open as streams need them.
 * Both ends need a file descriptor per connection: raise the limit for large runs ({@code ulimit -n},
 * {@code prlimit --nofile}).
 */
public final class AgentConnections {

  static final int CONNECTIONS_PER_SOURCE = 10_000;

  private final List<HttpClient> http = new ArrayList<>();
  private final List<GrpcClient> grpc = new ArrayList<>();
  private final int agentsPerSource;

  private AgentConnections(Vertx vertx, int agents, int streamsPerConnection) {
    int connections = (agents + streamsPerConnection - 1) / streamsPerConnection;
    int sources = Math.max(1, (connections + CONNECTIONS_PER_SOURCE - 1) / CONNECTIONS_PER_SOURCE);
    this.agentsPerSource = (agents + sources - 1) / sources;
    int connectionsPerSource = (agentsPerSource + streamsPerConnection - 1) / streamsPerConnection;
    for (int s = 0; s < sources; s++) {
      HttpClient client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)
          .setHttp2MultiplexingLimit(streamsPerConnection).setLocalAddress(source(s)))
        .with(new PoolOptions().setHttp2MaxSize(connectionsPerSource))
        .build();
      http.add(client);
      grpc.add(GrpcClient.client(vertx, client));
    }
  }

  /** Clients for {@code agents} agents, {@code streamsPerConnection} of them per connection. */
  public static AgentConnections open(Vertx vertx, int agents, int streamsPerConnection) {
    if (agents < 1 || streamsPerConnection < 1) {
      throw new IllegalArgumentException("agents and streams per connection must be positive");
    }
    return new AgentConnections(vertx, agents, streamsPerConnection);
  }

  /**
   * A client for a program's own calls (not agents): up to {@code connections} connections to each
   * node, each carrying as many streams as the node allows, so that more calls in flight than one
   * connection's stream limit open another connection instead of waiting.
   */
  public static GrpcClient pooled(Vertx vertx, int connections) {
    HttpClient client = vertx.httpClientBuilder()
      .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
      .with(new PoolOptions().setHttp2MaxSize(connections))
      .build();
    return GrpcClient.client(vertx, client);
  }

  /** The loopback address connections from source {@code s} leave from. */
  static String source(int s) {
    return String.format(Locale.ROOT, "127.0.%d.%d", 1 + s / 250, 1 + s % 250);
  }

  public GrpcClient forAgent(int i) {
    return grpc.get(i / agentsPerSource);
  }

  public int sources() {
    return http.size();
  }

  public Future<Void> close() {
    return Future.all(http.stream().map(HttpClient::close).toList()).mapEmpty();
  }
}
