package dev.conclave.gateway.clientsession;

import java.util.Set;

/** The {@code Op} type tags: those served, and seed 004's extensions that are refused as unsupported. */
final class Ops {

  static final String CONFIGURE_SESSION = "configure_session";
  static final String USER_INPUT = "user_input";
  static final String INTERRUPT = "interrupt";
  static final String EXEC_APPROVAL = "exec_approval";
  static final String LIFECYCLE_TRANSITION = "lifecycle_transition";
  static final String REGISTER_AGENT = "register_agent";
  static final String AGENT_QUERY = "agent_query";

  /** Ops that need a configured session (the registry ops do not). */
  static final Set<String> NEED_SESSION = Set.of(USER_INPUT, INTERRUPT, EXEC_APPROVAL);

  /** Seed 004's extensions that Conclave does not implement; each gets an {@code error} naming it. */
  static final Set<String> UNSUPPORTED = Set.of("spawn_sub_agent", "knowledge_update", "configure_agent", "verification", "verify_task",
    "verify_result", "cort", "cort_reasoning", "visualization", "visualization_init", "visualization_step", "visualization_end");

  private Ops() {
  }

  static boolean unsupported(String op) {
    return UNSUPPORTED.contains(op) || op.startsWith("verification") || op.startsWith("cort") || op.startsWith("visualization");
  }
}
