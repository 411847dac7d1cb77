package dev.conclave.gateway.tools.builtin;

import dev.conclave.gateway.control.ActingOwner;
import dev.conclave.gateway.control.AgentPrompts;
import dev.conclave.gateway.control.AgentTools;
import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.tools.GatewayTool;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The gateway's own tools: {@code builtin:admin} (admin_*) and {@code builtin:ui} (ask_user). */
public final class GatewayBuiltins {

  private GatewayBuiltins() {
  }

  public static List<GatewayTool> create(Vertx vertx, Questions questions, QuestionWaiters waiters, Duration askUserTimeout,
                                         ActingOwner owners, AgentTools agents, AgentPrompts prompts) {
    List<GatewayTool> tools = new ArrayList<>(AdminTools.create(owners, agents, prompts));
    tools.add(new AskUser(vertx, questions, waiters, askUserTimeout));
    return tools;
  }
}
