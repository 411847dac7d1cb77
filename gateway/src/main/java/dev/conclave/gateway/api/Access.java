package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Roles;

/** Who may use the client-facing APIs: principals with the member, admin or owner role. */
final class Access {

  private Access() {
  }

  static void requireMember(Caller caller) {
    if (!(caller.roles().contains(Roles.MEMBER) || caller.isAdmin())) {
      throw GatewayErrors.memberRoleRequired();
    }
  }
}
