package dev.conclave.gateway.model;

import java.util.Map;

/**
 * The member names of the registry's and the lifecycle's JSON on each surface: camelCase on HTTP,
 * like every HTTP answer (README, "The JSON style"), and snake_case in the session protocol, as seed
 * 004 spells its fields ({@code agent_id}, {@code parent_id}). Code names a member once, in camelCase,
 * and asks for its name here.
 */
public enum MemberNames {

  /** HTTP: the name as written. */
  CAMEL_CASE,
  /** The session protocol (seed 004): the snake_case name, or the older name a member had there. */
  SNAKE_CASE;

  /** Points in time that the session protocol named before HTTP's {@code …At} rule. */
  private static final Map<String, String> SESSION_NAMES = Map.of("lifecycleChangedAt", "lifecycle_since", "lastSeenAt", "last_seen");

  /** {@code member}'s name on this surface; {@code member} is camelCase. */
  public String of(String member) {
    if (this == CAMEL_CASE) {
      return member;
    }
    String named = SESSION_NAMES.get(member);
    if (named != null) {
      return named;
    }
    StringBuilder out = new StringBuilder(member.length() + 4);
    for (int i = 0; i < member.length(); i++) {
      char c = member.charAt(i);
      if (Character.isUpperCase(c)) {
        out.append('_').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
