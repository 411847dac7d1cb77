package dev.conclave.packs.support;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;

import java.util.List;

/** A real node running the gateway and the pack host, with helpers for packs and tool-calling agents. */
public final class PackHost implements AutoCloseable {

  private final GatewayFixture gw;

  private PackHost(GatewayFixture gw) {
    this.gw = gw;
  }

  public static PackHost start() {
    return start(TestNode.builder());
  }

  public static PackHost start(TestNode.Builder builder) {
    return new PackHost(GatewayFixture.start(builder.role(new PackHostRole())));
  }

  public GatewayFixture gw() {
    return gw;
  }

  public String packToken(String name) {
    return gw.token(gw.newPrincipal(PrincipalType.PACK, name, PrincipalStatus.APPROVED, List.of()));
  }

  public RawPack registerPack(String token, PackManifest manifest) {
    return RawPack.register(gw.grpc(), token, manifest);
  }

  public RawPack openPack(String token, PackManifest manifest) {
    return RawPack.open(gw.grpc(), token, manifest);
  }

  /** Connects an agent with these capabilities; returns it with its Welcome. */
  public ToolAgent agent(String agentId, String... capabilities) {
    RawAgent agent = gw.agent(gw.agentToken(agentId));
    RegisterAgent.Builder reg = RawAgent.registration(agentId).clearCapabilities().addAllCapabilities(List.of(capabilities));
    Welcome welcome = agent.register(reg);
    return new ToolAgent(agent, welcome);
  }

  @Override
  public void close() {
    gw.close();
  }

  /** An agent that calls tools. */
  public record ToolAgent(RawAgent raw, Welcome welcome) implements AutoCloseable {

    public void call(String requestId, String tool, String inputJson) {
      raw.send(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder()
        .setRequestId(requestId).setToolName(tool).setInputJson(inputJson)).build());
    }

    /** The next PackToolResult (other messages are skipped), waiting up to {@code ms}. */
    public PackToolResult result(long ms) {
      long deadline = System.currentTimeMillis() + ms;
      while (true) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          throw new AssertionError("no PackToolResult within " + ms + " ms");
        }
        ServerMessage m = raw.next(left);
        if (m.hasPackToolResult()) {
          return m.getPackToolResult();
        }
      }
    }

    public PackToolResult result() {
      return result(15_000);
    }

    /** Calls a tool and waits for its result. */
    public PackToolResult run(String requestId, String tool, String inputJson) {
      call(requestId, tool, inputJson);
      PackToolResult r = result();
      if (!r.getRequestId().equals(requestId)) {
        throw new AssertionError("result for " + r.getRequestId() + ", expected " + requestId);
      }
      return r;
    }

    public List<String> toolNames() {
      return welcome.getAvailableToolsList().stream().map(t -> t.getName()).toList();
    }

    @Override
    public void close() {
      raw.close();
    }
  }
}
