package dev.conclave.packs;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;

import java.util.List;

/** Every failure the pack host reports to packs and MCP clients, defined once. */
public final class PackErrors {

  private PackErrors() {
  }

  public static ConclaveException principalNotApproved(String status) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "principal_not_approved",
      "this pack principal is " + status + "; an admin must approve it first");
  }

  /** A tools query's {@code capabilities} parameter that names no capability list. */
  public static ConclaveException capabilitiesInvalid(String why) {
    return ConclaveException.invalid("capabilities_invalid", "capabilities: " + why);
  }

  public static ConclaveException invalidManifest(String field, String rule) {
    return ConclaveException.invalid("manifest_invalid", field + " " + rule);
  }

  public static ConclaveException packOwnedByOther(String packId) {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "pack_id_taken",
      "pack_id '" + packId + "' is registered by another principal");
  }

  public static ConclaveException allToolsTaken(String packId, List<String> rejected) {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "tools_taken",
      "every tool of pack '" + packId + "' is already provided by another pack or a built-in: " + String.join(", ", rejected));
  }

  public static ConclaveException superseded(String packId) {
    return new ConclaveException(ErrorKind.CONFLICT, "superseded",
      "pack '" + packId + "' registered again on a newer stream; this one is closed");
  }

  public static ConclaveException nodeStopping() {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "node_stopping", "this node is shutting down; register again on another node");
  }

  public static ConclaveException packSilent(long seconds) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "pack_unreachable", "the pack's connection did not answer a ping within " + seconds + " s");
  }

  public static ConclaveException resultNotExpected(String requestId, boolean late) {
    return ConclaveException.notFound("call_not_pending", late
      ? "call " + requestId + " already ended (it timed out or was answered); this result is dropped"
      : "no call " + requestId + " is waiting for a result from this pack");
  }

  public static ConclaveException requestIdMissing() {
    return ConclaveException.invalid("request_id_missing", "ExecuteToolResponse.request_id is required");
  }
}
