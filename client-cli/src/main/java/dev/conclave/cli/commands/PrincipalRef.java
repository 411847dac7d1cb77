package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.UUID;

/**
 * A principal as a command line names it: its id, used as it is, or its display name, looked up in
 * {@code GET /principals} (which admins may read; anyone else gives the id). A name that no principal
 * has is the server's {@code principal_not_found} (exit 1); a name several have is a usage error
 * that lists their ids.
 */
final class PrincipalRef {

  private PrincipalRef() {
  }

  static String resolve(Api api, String text) {
    if (isUuid(text)) {
      return text;
    }
    JsonArray all = api.get("/api/v1/gateway/principals").getJsonArray("principals", new JsonArray());
    List<String> ids = all.stream().map(JsonObject.class::cast).filter(p -> text.equals(p.getString("displayName")))
      .map(p -> p.getString("principalId")).toList();
    if (ids.isEmpty()) {
      throw new CliFailure(ExitCodes.SERVER_ERROR, "principal_not_found: no principal named " + text);
    }
    if (ids.size() > 1) {
      throw CliFailure.usage("several principals are named " + text + ": give the id, one of " + String.join(", ", ids));
    }
    return ids.get(0);
  }

  static boolean isUuid(String text) {
    try {
      return UUID.fromString(text).toString().equalsIgnoreCase(text);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
