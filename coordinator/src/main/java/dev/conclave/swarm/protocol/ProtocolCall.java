package dev.conclave.swarm.protocol;

import io.vertx.core.json.JsonObject;

import java.util.UUID;

/**
 * One request on its way to the database, whose {@code swarm.dispatch} checks it and runs it.
 *
 * @param principal the authenticated principal acting, or null for a trusted transport (files)
 * @param admin whether that principal may act for any agent
 * @param rate the rate-limit window to count the call in, or null for none
 * @param secretSalt for REGISTER over HTTP: the salt of the agent's new HMAC secret
 * @param signer the agent an HMAC-signed request was signed by (it acts only as that agent), or null
 * @param javaProblems what the coordinator found wrong where SQL cannot look
 *   ({@link ProtocolRequests#javaProblems}), or null
 */
public record ProtocolCall(Operation operation, JsonObject request, UUID principal, boolean admin,
                           RateBucket rate, String secretSalt, String signer, JsonObject javaProblems) {

  /** A rate-limit counter: its key and the most calls it allows per minute. */
  public record RateBucket(String key, int limit) {
  }

  public static ProtocolCall trusted(Operation operation, JsonObject request) {
    return new ProtocolCall(operation, request, null, false, null, null, null,
      ProtocolRequests.javaProblems(operation, request));
  }

  /** The item swarm.dispatch_batch takes for this call. */
  public JsonObject toBatchItem() {
    JsonObject options = new JsonObject().put("admin", admin);
    if (secretSalt != null) {
      options.put("secretSalt", secretSalt);
    }
    if (rate != null) {
      options.put("rate", new JsonObject().put("bucket", rate.key()).put("limit", rate.limit()));
    }
    if (signer != null) {
      options.put("signer", signer);
    }
    if (javaProblems != null) {
      options.put(ProtocolRequests.JAVA_PROBLEMS, javaProblems);
    }
    return new JsonObject()
      .put("request", request)
      .put("principal", principal == null ? null : principal.toString())
      .put("options", options);
  }
}
