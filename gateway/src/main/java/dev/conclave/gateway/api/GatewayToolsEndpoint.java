package dev.conclave.gateway.api;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.contract.Addresses;
import dev.conclave.gateway.control.ActingOwner;
import dev.conclave.gateway.control.AgentPrompts;
import dev.conclave.gateway.control.AgentTools;
import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.control.RequestTraces;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.packs.GatewayToolOps;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Base64;

/**
 * The gateway's side of {@link Addresses#GATEWAY_TOOLS}: what built-in tools running on a pack-host
 * node need from the gateway (questions to users, the agent directory, conversations, prompting an
 * agent). A failure's message is the error the agent sees.
 */
public final class GatewayToolsEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayToolsEndpoint.class);

  private final Questions questions;
  private final AgentTools agents;
  private final AgentPrompts prompts;
  private final ActingOwner owners;
  private final RequestTraces traces;

  public GatewayToolsEndpoint(Questions questions, AgentTools agents, AgentPrompts prompts, ActingOwner owners, RequestTraces traces) {
    this.traces = traces;
    this.questions = questions;
    this.agents = agents;
    this.prompts = prompts;
    this.owners = owners;
  }

  public MessageConsumer<JsonObject> register(Vertx vertx) {
    return vertx.eventBus().consumer(Addresses.GATEWAY_TOOLS, this::handle);
  }

  private void handle(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    Future<JsonObject> result;
    try {
      result = switch (body.getString(GatewayToolOps.OP, "")) {
        case GatewayToolOps.ASK_USER -> questions.ask(body.getString("agentId"), question(body.getString("question")))
          .map(key -> new JsonObject().put("conversationKey", key));
        case GatewayToolOps.REQUEST_TRACE -> traces.ofAgent(body.getString("agentId", ""));
        case GatewayToolOps.EXPIRE_QUESTION -> questions.expire(body.getString("questionId", ""));
        case GatewayToolOps.LIST_AGENTS -> actor(body).compose(agents::listConnected);
        case GatewayToolOps.AGENT_MESSAGES -> actor(body).compose(actor -> agents.messages(actor,
          body.getString("agentId", ""), body.getInteger("limit", 0), body.getString("cursor", "")));
        case GatewayToolOps.SEND_MESSAGE -> actor(body).compose(actor -> prompts.send(actor,
          body.getString("agentId", ""), body.getString("content", ""), body.getString("fromAgentId", ""),
          body.getString("idempotencyKey"), Duration.ofMillis(body.getLong("timeoutMs", 30_000L))));
        default -> Future.failedFuture(ConclaveException.invalid("op_unknown", "unknown gateway tool op '" + body.getString(GatewayToolOps.OP) + "'"));
      };
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        ConclaveException e = Failures.report(LOG, "gateway tool op " + body.getString(GatewayToolOps.OP), ar.cause());
        msg.fail(e.kind().httpStatus(), e.detail());
      }
    });
  }

  /** Who the calling agent acts as: its owner, if its principal holds the admin grant (ActingOwner). */
  private Future<dev.conclave.platform.auth.Caller> actor(JsonObject body) {
    java.util.Optional<java.util.UUID> principal = java.util.Optional.ofNullable(body.getString("fromPrincipalId"))
      .map(java.util.UUID::fromString);
    return owners.of(body.getString("fromAgentId", ""), principal);
  }

  private static UserQuestionRequest question(String base64) {
    try {
      return UserQuestionRequest.parseFrom(Base64.getDecoder().decode(base64));
    } catch (InvalidProtocolBufferException | IllegalArgumentException | NullPointerException e) {
      throw ConclaveException.invalid("question_invalid", "the question could not be decoded");
    }
  }
}
