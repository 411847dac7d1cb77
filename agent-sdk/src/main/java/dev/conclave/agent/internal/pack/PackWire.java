package dev.conclave.agent.internal.pack;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.internal.StatusMessages;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackWelcome;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.grpc.client.GrpcClientResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Conversions between the pack SDK's types and PackService's wire: the manifest, the welcome header, status messages. */
final class PackWire {

  /** Response header of {@code Register} carrying a base64 {@code PackWelcome}. */
  static final String WELCOME_HEADER = "pack-welcome-bin";

  private static final Logger LOG = LoggerFactory.getLogger(PackWire.class);

  private PackWire() {
  }

  static PackManifest manifest(PackConfig config) {
    PackManifest.Builder m = PackManifest.newBuilder().setPackId(config.packId()).setVersion(config.version());
    for (PackTool t : config.tools()) {
      m.addTools(ToolDefinition.newBuilder()
        .setName(t.name())
        .setDescription(t.description())
        .setInputSchemaJson(t.inputSchemaJson())
        .addAllRequiredCapabilities(t.requiredCapabilities())
        .setTimeoutSeconds(t.timeoutSeconds()));
    }
    return m.build();
  }

  /**
   * The registration that {@code Register}'s response headers announce. Without a readable welcome
   * header every tool is taken as live: the gateway routes only what it accepted anyway, so the
   * sets are for information, and a pack that keeps working beats one that refuses to.
   */
  static PackRegistration registration(PackConfig config, Endpoint endpoint, String header, String log) {
    List<String> offered = config.tools().stream().map(PackTool::name).toList();
    if (header == null) {
      LOG.warn("the gateway sent no {} header; taking every tool as live {}", WELCOME_HEADER, log);
      return new PackRegistration(config.packId(), endpoint, offered, List.of());
    }
    PackWelcome welcome;
    try {
      welcome = decodeWelcome(header);
    } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
      LOG.warn("unreadable {} header; taking every tool as live {} error={}", WELCOME_HEADER, log, e.getMessage());
      return new PackRegistration(config.packId(), endpoint, offered, List.of());
    }
    String packId = welcome.getPackId().isEmpty() ? config.packId() : welcome.getPackId();
    if (!packId.equals(config.packId())) {
      LOG.warn("the gateway welcomed a different pack id {} welcomed={}", log, packId);
    }
    Set<String> rejected = new HashSet<>(welcome.getRejectedToolsList());
    return new PackRegistration(packId, endpoint,
      offered.stream().filter(n -> !rejected.contains(n)).toList(), welcome.getRejectedToolsList());
  }

  /** Standard base64, padded or not; gRPC joins repeated binary headers with commas, and the first counts. */
  static PackWelcome decodeWelcome(String header) throws InvalidProtocolBufferException {
    String value = header.strip();
    int comma = value.indexOf(',');
    if (comma >= 0) {
      value = value.substring(0, comma).strip();
    }
    return PackWelcome.parseFrom(Base64.getDecoder().decode(value));
  }

  /** The server's {@code grpc-message}, wherever the response carries it. */
  static String statusMessage(GrpcClientResponse<?, ?> response) {
    return StatusMessages.of(response);
  }

  static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }
}
