package dev.conclave.platform.auth;

import java.util.Set;

/** Role names a principal can hold. */
public final class Roles {

  public static final String OWNER = "owner";
  public static final String ADMIN = "admin";
  public static final String MEMBER = "member";

  public static final Set<String> ALL = Set.of(OWNER, ADMIN, MEMBER);

  private Roles() {
  }
}
