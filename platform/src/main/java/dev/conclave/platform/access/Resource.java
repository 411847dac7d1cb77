package dev.conclave.platform.access;

/**
 * What a route acts on, beyond who may call it: the rule its handler applies per request. Declared
 * in the {@link RouteTable} next to the {@link Audience}, so the whole access model can be read (and
 * tested) from one table.
 */
public enum Resource {
  /** Nothing beyond the audience. */
  NONE("-"),
  /** A named agent (or its conversation): the caller must own it, be granted it, or be an admin. */
  AGENT("the agent's owner, grantees, admins"),
  /** A named agent's management (its grants): its owner, or an admin; grantees may not re-grant. */
  AGENT_OWNER("the agent's owner, admins"),
  /** The caller's own identity (its agent stream, its pack, its tokens). */
  SELF("the caller itself"),
  /** A swarm agent: the principal that registered it (or the agent signing the request), admins. */
  SWARM_AGENT("the swarm agent's registrant, admins");

  private final String description;

  Resource(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
