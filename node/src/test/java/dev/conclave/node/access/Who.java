package dev.conclave.node.access;

import java.util.EnumSet;
import java.util.Set;

/** The callers every route is tried with. */
enum Who {
  /** No credentials at all. */
  NOBODY,
  /** An agent principal that owns nothing here. */
  AGENT,
  /** A pack principal. */
  PACK,
  /** A member who owns the fixture's agent. */
  MEMBER_WITH_ACCESS,
  /** A member with no access to the fixture's agent. */
  MEMBER_WITHOUT_ACCESS,
  ADMIN,
  /** The MCP token from the fixture agent's Welcome. */
  MCP_TOKEN,
  /** A bridge token of the member with access: no route accepts one until the event-bus bridge exists. */
  BRIDGE_TOKEN;

  /** Everyone holding an API token. */
  static final Set<Who> API_CALLERS = EnumSet.of(AGENT, PACK, MEMBER_WITH_ACCESS, MEMBER_WITHOUT_ACCESS, ADMIN);
  static final Set<Who> MEMBERS = EnumSet.of(MEMBER_WITH_ACCESS, MEMBER_WITHOUT_ACCESS, ADMIN);
  static final Set<Who> OWNER_OR_ADMIN = EnumSet.of(MEMBER_WITH_ACCESS, ADMIN);
  static final Set<Who> ADMIN_ONLY = EnumSet.of(ADMIN);
}
