package dev.conclave.platform.access;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;

/**
 * Who may call a route at all, before any check of the resource it names. Every gRPC method and
 * every authenticated HTTP route declares one (see {@link RouteTable}); the edge enforces it before
 * the handler runs. Resource rules (which agent, which conversation) are {@link AgentAccess}'s.
 */
public enum Audience {
  /** Any authenticated principal; the handler decides per resource. */
  ANY_PRINCIPAL("any principal"),
  /** Members, admins and owners (people and their tools); per-agent rules follow in the handler. */
  MEMBERS("members"),
  /** Admins and owners only. */
  ADMINS("admins"),
  /** Agent principals (an admin may stand in, as for registration tests and operations). */
  AGENTS("agent principals"),
  /** Pack principals only. */
  PACKS("pack principals"),
  /** Holders of an MCP token (the one in an agent's Welcome); no other token is accepted there. */
  MCP_TOKENS("MCP tokens");

  private final String description;

  Audience(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /** Passes, or throws PERMISSION_DENIED naming who may call. */
  public void check(Caller caller, String route) {
    boolean allowed = switch (this) {
      case ANY_PRINCIPAL -> true;
      case MEMBERS -> caller.isAdmin() || caller.roles().contains(Roles.MEMBER);
      case ADMINS -> caller.isAdmin();
      case AGENTS -> caller.type() == PrincipalType.AGENT || caller.isAdmin();
      case PACKS -> caller.type() == PrincipalType.PACK;
      case MCP_TOKENS -> caller.purpose() == TokenPurpose.MCP;
    };
    if (!allowed) {
      throw switch (this) {
        case ADMINS -> AuthErrors.adminRequired();
        case MEMBERS -> AuthErrors.memberRequired(route);
        case PACKS -> AuthErrors.packPrincipalRequired(route, caller.type().wire());
        case AGENTS -> AuthErrors.agentPrincipalRequired(route, caller.type().wire());
        case MCP_TOKENS -> AuthErrors.wrongPurpose(caller.purpose().wire(), TokenPurpose.MCP.wire());
        case ANY_PRINCIPAL -> new IllegalStateException("unreachable");
      };
    }
  }
}
