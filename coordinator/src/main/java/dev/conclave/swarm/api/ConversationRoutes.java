package dev.conclave.swarm.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.conversations.TaskConversations;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.security.SignedAgent;
import dev.conclave.swarm.validation.JsonFields;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;

/**
 * {@code POST /api/v1/tasks/:id/conversation} (beyond the spec): the agent that holds a task asks
 * for it to become a conversation in the gateway ({@link TaskConversations}). The body is
 * {@code {"protocolVersion": "1.0", "agentId"}}; the caller acts for the agent as for any protocol
 * operation (its registrant, an admin, or the agent itself signing the request).
 */
final class ConversationRoutes {

  private final TaskConversations conversations;

  ConversationRoutes(TaskConversations conversations) {
    this.conversations = conversations;
  }

  void bind(HttpRoutes router) {
    router.raw(HttpMethod.POST, "/api/v1/tasks/:id/conversation", Audience.ANY_PRINCIPAL, Resource.SWARM_AGENT, false, ctx -> {
      try {
        Caller caller = HttpAuthHandler.caller(ctx);
        JsonObject body = Requests.withPathMember(Requests.body(ctx, false), "taskId", ctx.pathParam("id"));
        if (!"1.0".equals(body.getValue("protocolVersion"))) {
          throw SwarmErrors.unsupportedVersion(body.getValue("protocolVersion"));
        }
        JsonFields fields = JsonFields.of(body);
        String taskId = fields.id("taskId", true);
        String agentId = fields.id("agentId", true);
        SignedAgent.requireSelf(ctx, agentId);
        conversations.open(taskId, agentId, caller.principalId(), caller.isAdmin()).onComplete(ar -> {
          if (ar.succeeded()) {
            Replies.json(ctx, 200, ar.result());
          } else {
            Replies.problem(ctx, ar.cause());
          }
        });
      } catch (RuntimeException e) {
        Replies.problem(ctx, e);
      }
    });
  }
}
