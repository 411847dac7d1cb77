package dev.conclave.gateway.support;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A non-blocking agent for load tests: answers each SendMessage with a few text chunks and done,
 * strictly one at a time, entirely on its Vert.x context.
 */
public final class EchoAgent {

  private final GrpcClientRequest<AgentMessage, ServerMessage> request;
  private final AtomicInteger handled = new AtomicInteger();
  private final Promise<Void> registered = Promise.promise();

  private EchoAgent(GrpcClientRequest<AgentMessage, ServerMessage> request) {
    this.request = request;
  }

  public static Future<EchoAgent> start(GrpcClient client, SocketAddress address, String token, String agentId, int chunks) {
    return client.request(address, CovenControlGrpcClient.AgentStream).compose(req -> {
      req.headers().set("authorization", "Bearer " + token);
      EchoAgent agent = new EchoAgent(req);
      req.response().onSuccess(resp -> resp.handler(m -> agent.onMessage(m, chunks)));
      req.write(AgentMessage.newBuilder().setRegister(RawAgent.registration(agentId)).build());
      return agent.registered.future().map(agent);
    });
  }

  private void onMessage(ServerMessage m, int chunks) {
    if (m.hasWelcome()) {
      registered.tryComplete();
      return;
    }
    if (!m.hasSendMessage()) {
      return;
    }
    String id = m.getSendMessage().getRequestId();
    for (int i = 0; i < chunks; i++) {
      request.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setText("chunk " + i + " ")).build());
    }
    request.write(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setDone(Done.getDefaultInstance())).build());
    handled.incrementAndGet();
  }

  public int handled() {
    return handled.get();
  }

  public void close() {
    request.cancel();
  }
}
