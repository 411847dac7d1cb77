package dev.conclave.swarm.files;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.errors.SwarmProblem;
import dev.conclave.swarm.protocol.Operation;
import dev.conclave.swarm.protocol.ProtocolCall;
import dev.conclave.swarm.protocol.ProtocolReply;
import dev.conclave.swarm.protocol.ProtocolRequests;
import dev.conclave.swarm.protocol.ProtocolService;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the content of a request file into the content of its response file. A request file is
 * {protocolVersion, operation, ...the operation's members}; the response is the spec's response, or
 * on failure {success: false, error: "<detail>", code, status (the HTTP status the error would have),
 * ...extension members}. Never fails: whatever is wrong with a file is said in its response.
 */
final class FileAnswers {

  private static final Logger LOG = LoggerFactory.getLogger(FileAnswers.class);

  private final ProtocolService service;

  FileAnswers(ProtocolService service) {
    this.service = service;
  }

  Future<JsonObject> answer(Buffer content) {
    try {
      Object parsed;
      try {
        parsed = Json.decodeValue(content);
      } catch (DecodeException e) {
        throw SwarmErrors.invalidField("body", "is not valid JSON");
      }
      if (!(parsed instanceof JsonObject body)) {
        throw SwarmErrors.invalidField("body", "must be a JSON object");
      }
      Operation op = ProtocolRequests.operationOf(body);
      JsonObject request = ProtocolRequests.validate(op, body);
      // the file system is the trust boundary: whoever can write request files acts as a trusted client
      return service.execute(ProtocolCall.trusted(op, request)).map(ProtocolReply::object)
        .recover(err -> Future.succeededFuture(error(err)));
    } catch (RuntimeException e) {
      return Future.succeededFuture(error(e));
    }
  }

  static JsonObject error(Throwable failure) {
    ConclaveException problem = Failures.report(LOG, "swarm file request", SwarmErrors.fromSql(failure));
    JsonObject body = new JsonObject();
    if (problem instanceof SwarmProblem swarm) {
      body.mergeIn(swarm.extensions());
    }
    return body.put("success", false).put("error", Failures.safeDetail(problem.detail())).put("code", problem.code())
      .put("status", problem.kind().httpStatus());
  }
}
