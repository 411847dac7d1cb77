package dev.conclave.gateway.model;

import dev.conclave.proto.coven.AgentMetadata;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An agent that has registered at least once. */
public record AgentRecord(
  String agentId,
  UUID principalId,
  String name,
  List<String> capabilities,
  List<String> features,
  AgentMetadata metadata,
  String instanceId,
  long epoch,
  Instant lastSeen) {

  public boolean declared(String feature) {
    return features.contains(feature);
  }
}
