package dev.conclave.e2e.support;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.grpc.client.GrpcClient;

import java.util.Locale;

/**
 * gRPC clients for thousands of agents in one benchmark JVM, shaped like agents in the field: each
 * agent's stream on a connection of its own ({@code streamsPerConnection} 1), or a given number of
 * streams per connection when file descriptors are short. Each connection is a {@link GrpcClient} of
 * its own (its pool holds one HTTP/2 connection), leaving from one of several loopback source
 * addresses (127.0.1.1, 127.0.1.2, …; all of 127.0.0.0/8 is loopback on Linux), at most
 * {@value #CONNECTIONS_PER_SOURCE} from each, so that the ephemeral ports (about 28,000 per source
 * and destination) are never what bounds the number of agents. (One shared client whose pool opened
 * a connection per stream, {@code http2MultiplexingLimit} 1, left one agent in ten unregistered for
 * 300 s at 10,000 agents on a loaded machine, and was not pursued.)
 *
 * <p>Both ends need a file descriptor per connection: the limit ({@code ulimit -n}) bounds the agents
 * per node unless streams share connections.
 */
public final class AgentConnections {

  static final int CONNECTIONS_PER_SOURCE = 10_000;

  private final Vertx vertx;
  private final int streamsPerConnection;
  private final java.util.Map<Integer, GrpcClient> clients = new java.util.concurrent.ConcurrentHashMap<>();

  private AgentConnections(Vertx vertx, int streamsPerConnection) {
    this.vertx = vertx;
    this.streamsPerConnection = streamsPerConnection;
  }

  /** Clients for agents, {@code streamsPerConnection} of them per connection. */
  public static AgentConnections open(Vertx vertx, int streamsPerConnection) {
    if (streamsPerConnection < 1) {
      throw new IllegalArgumentException("streams per connection must be positive");
    }
    return new AgentConnections(vertx, streamsPerConnection);
  }

  /**
   * A client for a program's own calls (not agents): up to {@code connections} connections to each
   * node, each carrying as many streams as the node allows. Closed with its Vert.x instance.
   */
  public static GrpcClient pooled(Vertx vertx, int connections) {
    HttpClient client = vertx.httpClientBuilder()
      .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
      .with(new PoolOptions().setHttp2MaxSize(connections))
      .build();
    return GrpcClient.client(vertx, client);
  }

  /** The loopback address connection {@code c} leaves from. */
  static String source(int c) {
    int s = c / CONNECTIONS_PER_SOURCE;
    return String.format(Locale.ROOT, "127.0.%d.%d", 1 + s / 250, 1 + s % 250);
  }

  /** Agent {@code i}'s client: the connection it shares with the agents next to it, if any. */
  public GrpcClient forAgent(int i) {
    int c = i / streamsPerConnection;
    return clients.computeIfAbsent(c, k -> GrpcClient.client(vertx, new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
      .setHttp2ClearTextUpgrade(false).setLocalAddress(source(k))));
  }

  /** Source addresses in use so far. */
  public int sources() {
    return clients.keySet().stream().map(AgentConnections::source).collect(java.util.stream.Collectors.toSet()).size();
  }

  public Future<Void> close() {
    return Future.all(clients.values().stream().map(GrpcClient::close).toList()).mapEmpty();
  }
}
