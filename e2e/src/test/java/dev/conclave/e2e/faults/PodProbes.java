package dev.conclave.e2e.faults;

import dev.conclave.e2e.cluster.ResilientAgent;
import dev.conclave.e2e.support.NetnsCluster;
import dev.conclave.e2e.support.NodeList;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.InvalidStatusException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What a fault scenario asks the pods while it runs, each question bounded by a short timeout so a
 * partitioned or database-less pod answers "no answer" instead of stalling the test: the Service
 * address of a pod, its readiness, the cluster as it sees it ({@code /api/v1/gateway/nodes}), where
 * it believes each agent is ({@code /api/v1/gateway/agents}), and one {@code SendMessage} without
 * any retry (the status a client would see).
 */
final class PodProbes {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(2)).build();

  private final NetnsCluster cluster;
  private final GrpcClient grpc;
  private final String admin;

  PodProbes(NetnsCluster cluster, GrpcClient grpc, String admin) {
    this.cluster = cluster;
    this.grpc = grpc;
    this.admin = admin;
  }

  /**
   * Every pod's gRPC address, the running pods first, then the spares (clients and agents try them
   * in turn, so they find pods a rolling restart starts later).
   */
  List<SocketAddress> grpcEndpoints() {
    return podsRunningFirst().stream().map(p -> SocketAddress.inetSocketAddress(NetnsCluster.GRPC_PORT, cluster.pod(p).address())).toList();
  }

  /** Every pod's HTTP address, the running pods first. */
  List<SocketAddress> httpEndpoints() {
    return podsRunningFirst().stream().map(p -> SocketAddress.inetSocketAddress(NetnsCluster.HTTP_PORT, cluster.pod(p).address())).toList();
  }

  private List<Integer> podsRunningFirst() {
    List<Integer> out = new java.util.ArrayList<>(cluster.running());
    for (int i = 0; i < cluster.size(); i++) {
      if (!out.contains(i)) {
        out.add(i);
      }
    }
    return out;
  }

  SocketAddress grpcEndpoint(int pod) {
    return SocketAddress.inetSocketAddress(NetnsCluster.GRPC_PORT, cluster.pod(pod).address());
  }

  /** {@code /health/ready}'s status on pod {@code i}, or -1 when nothing answers. */
  int ready(int pod) {
    return cluster.node(pod).readyStatus();
  }

  /** The gateway nodes pod {@code i} lists as up, with the agents each holds; empty when it does not answer. */
  Map<String, Integer> nodes(int pod) {
    return get(pod, "/api/v1/gateway/nodes").map(NodeList::up).orElse(Map.of());
  }

  /** Agent id to the node pod {@code i} believes holds it ("" for not connected); empty when it does not answer. */
  Optional<Map<String, String>> presence(int pod) {
    return get(pod, "/api/v1/gateway/agents").map(body -> {
      Map<String, String> out = new TreeMap<>();
      JsonArray list = body.getJsonArray("agents");
      for (int i = 0; i < list.size(); i++) {
        JsonObject a = list.getJsonObject(i);
        out.put(a.getString("agentId"), a.getBoolean("connected", false) ? a.getString("node", "") : "");
      }
      return out;
    });
  }

  /** Where each agent's stream really is (the node that welcomed it last). */
  static Map<String, String> truth(List<ResilientAgent> agents) {
    Map<String, String> out = new TreeMap<>();
    agents.forEach(a -> out.put(a.agentId(), a.servedBy()));
    return out;
  }

  /** How many of {@code agents} pod {@code i} places on a node other than the one holding the stream (-1: no answer). */
  int misplaced(int pod, List<ResilientAgent> agents) {
    Optional<Map<String, String>> seen = presence(pod);
    if (seen.isEmpty()) {
      return -1;
    }
    int wrong = 0;
    for (Map.Entry<String, String> e : truth(agents).entrySet()) {
      if (!e.getValue().equals(seen.get().getOrDefault(e.getKey(), ""))) {
        wrong++;
      }
    }
    return wrong;
  }

  /** True when every pod in {@code pods} lists exactly those pods as the cluster and places every agent where it is. */
  boolean converged(List<Integer> pods, List<ResilientAgent> agents) {
    List<String> names = pods.stream().map(p -> cluster.pod(p).namespace()).sorted().toList();
    for (int p : pods) {
      if (!nodes(p).keySet().stream().sorted().toList().equals(names) || misplaced(p, agents) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Each pod's view: the members it lists and how many agents it places wrongly (for failure reports). */
  String describe(List<Integer> pods, List<ResilientAgent> agents) {
    StringBuilder out = new StringBuilder();
    for (int p : pods) {
      int wrong = misplaced(p, agents);
      out.append(cluster.pod(p).namespace()).append(" lists ").append(nodes(p)).append(", places ")
        .append(wrong < 0 ? "(no answer)" : wrong + " agents wrongly").append("; ");
    }
    Map<String, Long> perNode = new TreeMap<>();
    truth(agents).values().forEach(n -> perNode.merge(n, 1L, Long::sum));
    return out.append("agents really on ").append(perNode).toString();
  }

  /** Waits until {@link #converged}; returns how long it took from {@code since} (nanoTime), or empty at {@code limit}. */
  Optional<Duration> awaitConverged(List<Integer> pods, List<ResilientAgent> agents, long since, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (converged(pods, agents)) {
        return Optional.of(Duration.ofNanos(System.nanoTime() - since));
      }
      sleep(250);
    }
    return Optional.empty();
  }

  /**
   * One {@code SendMessage} to pod {@code i}, no retry and no deadline of its own (what the node
   * answers by itself, waiting at most 15 s), recorded in {@code history} like the load's sends, so
   * the checker holds an acknowledgement to the same account: "OK", the gRPC status name, or the
   * failure's class.
   */
  String sendOnce(int pod, String conversation, String idempotencyKey, History history) {
    Op invoke = history.invoke("probe", GatewayOps.SEND, idempotencyKey, Map.of(GatewayOps.CONVERSATION, conversation));
    try {
      var response = grpc.request(grpcEndpoint(pod), ClientServiceGrpcClient.SendMessage).compose(req -> {
        req.headers().set("authorization", "Bearer " + admin);
        return req.send(ClientSendMessageRequest.newBuilder().setConversationKey(conversation).setContent("probe")
          .setIdempotencyKey(idempotencyKey).build());
      }).compose(r -> r.last()).await(15, TimeUnit.SECONDS);
      history.ok(invoke, Map.of(GatewayOps.MESSAGE_ID, response.getMessageId(), GatewayOps.STATUS, response.getStatus()));
      return "OK";
    } catch (Exception e) {
      Throwable c = e; // await throws the call's own failure
      history.info(invoke, Map.of(GatewayOps.ERROR, String.valueOf(c)));
      return c instanceof InvalidStatusException ise ? ise.actualStatus().name() : c.getClass().getSimpleName();
    }
  }

  private Optional<JsonObject> get(int pod, String path) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + cluster.pod(pod).address() + ":"
          + NetnsCluster.HTTP_PORT + path)).header("authorization", "Bearer " + admin)
        .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? Optional.of(new JsonObject(r.body())) : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
