package dev.conclave.platform.access;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How one open follower is judged when access changed ({@link AccessRecheck#lost}), and what an
 * announcement carries between nodes ({@link AccessChange}).
 */
class AccessRecheckTest {

  private static final AccessTarget CONVERSATION = AccessTarget.conversation(Audience.MEMBERS, "c-1");
  private static final AccessTarget ADMINS_ONLY = AccessTarget.of(Audience.ADMINS, "'conclave.events.lifecycle'");

  @Test
  void aMemberKeepsWhatTheRuleStillAllowsAndLosesWhatItNoLongerDoes() {
    Caller member = caller(Roles.MEMBER);
    assertThat(AccessRecheck.lost(member, CONVERSATION, new AgentAccess.Verdict(true, Set.of(Roles.MEMBER)))).isEmpty();
    Optional<ConclaveException> lost = AccessRecheck.lost(member, CONVERSATION, new AgentAccess.Verdict(false, Set.of(Roles.MEMBER)));
    assertThat(lost).hasValueSatisfying(e -> {
      assertThat(e.code()).isEqualTo("access_revoked");
      assertThat(e.detail()).startsWith("access to conversation 'c-1' was taken away");
    });
  }

  @Test
  void anAdminPassesTheRuleOnlyWhileItsPrincipalStillHoldsTheRole() {
    Caller admin = caller(Roles.ADMIN, Roles.MEMBER);
    assertThat(AccessRecheck.lost(admin, CONVERSATION, new AgentAccess.Verdict(false, Set.of(Roles.ADMIN, Roles.MEMBER)))).isEmpty();
    assertThat(AccessRecheck.lost(admin, ADMINS_ONLY, new AgentAccess.Verdict(true, Set.of(Roles.ADMIN)))).isEmpty();
    // the role was taken away: the credentials still name it, the principal no longer holds it
    assertThat(AccessRecheck.lost(admin, CONVERSATION, new AgentAccess.Verdict(false, Set.of(Roles.MEMBER)))).isPresent();
    assertThat(AccessRecheck.lost(admin, ADMINS_ONLY, new AgentAccess.Verdict(true, Set.of(Roles.MEMBER))))
      .hasValueSatisfying(e -> assertThat(e.detail()).contains("'conclave.events.lifecycle'").contains("admin"));
  }

  @Test
  void aRoleTheCredentialsNeverNamedIsNotGainedFromThePrincipal() {
    Caller member = caller(Roles.MEMBER);
    assertThat(AccessRecheck.lost(member, CONVERSATION, new AgentAccess.Verdict(false, Set.of(Roles.ADMIN, Roles.MEMBER)))).isPresent();
    assertThat(AccessRecheck.lost(member, ADMINS_ONLY, new AgentAccess.Verdict(true, Set.of(Roles.ADMIN)))).isPresent();
  }

  @Test
  void anAnnouncementSurvivesTheWireAndAGarbledOneAsksForEverything() {
    UUID p = UUID.randomUUID();
    AccessChange change = new AccessChange(Set.of(p), Set.of("slack:c1"), false);
    JsonObject json = change.toJson("node-1");
    assertThat(json.getString("origin")).isEqualTo("node-1");
    assertThat(AccessChange.fromJson(new JsonObject(json.encode()))).isEqualTo(change);
    assertThat(AccessChange.fromJson(new JsonObject().put("principals", "not a list"))).isEqualTo(AccessChange.all());
    assertThat(AccessChange.fromJson(new JsonObject().put("principals", new io.vertx.core.json.JsonArray().add("not a uuid"))))
      .isEqualTo(AccessChange.all());
  }

  private static Caller caller(String... roles) {
    return new Caller(UUID.randomUUID(), PrincipalType.CLIENT, Set.of(roles), Optional.of(UUID.randomUUID()), Instant.now().plusSeconds(600));
  }
}
