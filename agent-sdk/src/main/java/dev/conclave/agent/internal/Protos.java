package dev.conclave.agent.internal;

import com.google.protobuf.ByteString;
import dev.conclave.agent.Attachment;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.Feature;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.Injection;
import dev.conclave.agent.InjectionPriority;
import dev.conclave.agent.PackToolInfo;
import dev.conclave.agent.Session;
import dev.conclave.agent.ToolState;
import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.TraceContext;
import dev.conclave.contract.SendMessageTraces;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.GitInfo;
import dev.conclave.proto.coven.InjectContext;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.Welcome;

import java.time.Duration;
import java.util.Optional;

/** Conversions between the SDK's types and the generated Coven messages. */
final class Protos {

  private Protos() {
  }

  static AgentMessage register(ClientConfig config) {
    AgentMetadata.Builder metadata = AgentMetadata.newBuilder()
      .setWorkingDirectory(config.environment().workingDirectory())
      .setHostname(config.environment().hostname())
      .setOs(config.environment().os())
      .addAllWorkspaces(config.environment().workspaces())
      .setBackend(config.environment().backend());
    config.environment().git().ifPresent(g -> metadata.setGit(GitInfo.newBuilder()
      .setBranch(g.branch()).setCommit(g.commit()).setDirty(g.dirty()).setRemote(g.remote())
      .setAhead(g.ahead()).setBehind(g.behind())));
    RegisterAgent.Builder register = RegisterAgent.newBuilder()
      .setAgentId(config.agentId())
      .setName(config.name())
      .addAllCapabilities(config.capabilities())
      .setMetadata(metadata);
    for (Feature f : config.features()) {
      register.addProtocolFeatures(f.wireName());
    }
    return AgentMessage.newBuilder().setRegister(register).build();
  }

  static Session session(Endpoint endpoint, Welcome w) {
    return new Session(endpoint, w.getServerId(), w.getAgentId(), w.getInstanceId(), w.getPrincipalId(),
      w.getAvailableToolsList().stream().map(Protos::tool).toList(),
      w.getMcpToken(), w.getMcpEndpoint(), w.getSecretsMap());
  }

  private static PackToolInfo tool(ToolDefinition t) {
    return new PackToolInfo(t.getName(), t.getDescription(), t.getInputSchemaJson(), t.getRequiredCapabilitiesList(),
      Duration.ofSeconds(Math.max(0, t.getTimeoutSeconds())));
  }

  static IncomingMessage message(SendMessage m) {
    return new IncomingMessage(m.getRequestId(), m.getThreadId(), m.getSender(), m.getContent(),
      m.getAttachmentsList().stream()
        .map(a -> new Attachment(a.getFilename(), a.getMimeType(), a.getData().toByteArray()))
        .toList(),
      TraceContext.of(SendMessageTraces.of(m)));
  }

  static Injection injection(InjectContext i) {
    InjectionPriority priority = switch (i.getPriority()) {
      case INJECTION_PRIORITY_IMMEDIATE -> InjectionPriority.IMMEDIATE;
      case INJECTION_PRIORITY_NORMAL -> InjectionPriority.NORMAL;
      case INJECTION_PRIORITY_DEFERRED -> InjectionPriority.DEFERRED;
      default -> InjectionPriority.UNSPECIFIED;
    };
    return new Injection(i.getInjectionId(), i.getContent(), priority,
      i.hasSource() ? Optional.of(i.getSource()) : Optional.empty());
  }

  static dev.conclave.proto.coven.ToolState toolState(ToolState s) {
    return switch (s) {
      case PENDING -> dev.conclave.proto.coven.ToolState.TOOL_STATE_PENDING;
      case AWAITING_APPROVAL -> dev.conclave.proto.coven.ToolState.TOOL_STATE_AWAITING_APPROVAL;
      case RUNNING -> dev.conclave.proto.coven.ToolState.TOOL_STATE_RUNNING;
      case COMPLETED -> dev.conclave.proto.coven.ToolState.TOOL_STATE_COMPLETED;
      case FAILED -> dev.conclave.proto.coven.ToolState.TOOL_STATE_FAILED;
      case DENIED -> dev.conclave.proto.coven.ToolState.TOOL_STATE_DENIED;
      case TIMEOUT -> dev.conclave.proto.coven.ToolState.TOOL_STATE_TIMEOUT;
      case CANCELLED -> dev.conclave.proto.coven.ToolState.TOOL_STATE_CANCELLED;
    };
  }

  static dev.conclave.proto.coven.TokenUsage usage(TokenUsage u) {
    return dev.conclave.proto.coven.TokenUsage.newBuilder()
      .setInputTokens(u.inputTokens()).setOutputTokens(u.outputTokens())
      .setCacheReadTokens(u.cacheReadTokens()).setCacheWriteTokens(u.cacheWriteTokens())
      .setThinkingTokens(u.thinkingTokens()).build();
  }

  static ByteString bytes(byte[] data) {
    return data == null ? ByteString.EMPTY : ByteString.copyFrom(data);
  }

  /** Proto string fields reject null; the SDK treats null as empty. */
  static String str(String s) {
    return s == null ? "" : s;
  }
}
