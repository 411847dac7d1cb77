package dev.conclave.node;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.conclave.platform.testing.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ./conclave token --new-agent NAME}: issue 40, finding 3. Without {@code --owner} the agent
 * used to belong to the bootstrap admin, and its built-in admin tools acted with the admin's reach.
 * Now it has no owner, and admin tools come only with a capability granted to its principal.
 */
class TokenCommandTest {

  private static Vertx vertx;
  private static Pool pool;
  private static PrincipalStore principals;

  @BeforeAll
  static void start() {
    PgUrl db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth")));
    vertx = Vertx.vertx();
    pool = PgPools.create(vertx, db, 2, 16);
    principals = new PrincipalStore(pool);
  }

  @AfterAll
  static void stop() throws Exception {
    pool.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aNewAgentWithoutOwnerBelongsToNoOne() {
    Principal agent = await(command("--new-agent", "no-owner").resolvePrincipal(principals));
    assertThat(agent.type()).isEqualTo(PrincipalType.AGENT);
    assertThat(agent.ownerId()).as("owner").isEmpty();
    assertThat(capabilities(agent.id())).isEmpty();
  }

  @Test
  void aNewAgentWithAnOwnerBelongsToThatMember() {
    Principal member = await(principals.create(UUID.randomUUID(), PrincipalType.CLIENT, "m", PrincipalStatus.APPROVED,
      List.of(Roles.MEMBER), Optional.empty()));
    Principal agent = await(command("--new-agent", "owned", "--owner", member.id().toString()).resolvePrincipal(principals));
    assertThat(agent.ownerId()).contains(member.id());
  }

  @Test
  void theAdminCapabilityIsGrantedOnlyWhenAsked() {
    Principal agent = await(command("--new-agent", "ops", "--grant-capability", "admin").resolvePrincipal(principals));
    assertThat(capabilities(agent.id())).containsExactly("admin");
    Principal again = await(command("--principal", agent.id().toString(), "--grant-capability", "admin").resolvePrincipal(principals));
    assertThat(again.id()).isEqualTo(agent.id());
    assertThat(capabilities(agent.id())).containsExactly("admin");
  }

  @Test
  void onlyKnownCapabilitiesAndOnlyForAgentsAndOwnersThatExist() {
    assertThatThrownBy(() -> await(command("--new-agent", "x", "--grant-capability", "root").resolvePrincipal(principals)))
      .hasMessageContaining("root");
    assertThatThrownBy(() -> await(command("--new-client", "c", "--grant-capability", "admin").resolvePrincipal(principals)))
      .hasMessageContaining("agent");
    assertThatThrownBy(() -> await(command("--new-agent", "y", "--owner", UUID.randomUUID().toString()).resolvePrincipal(principals)))
      .hasMessageContaining("no principal");
  }

  /** {@code -o json}: a script takes the new principal's id (for {@code --owner}) without decoding the token. */
  @Test
  void theJsonOutputNamesThePrincipalAndTheToken() {
    Principal member = await(command("--new-client", "json-member", "-o", "json").resolvePrincipal(principals));
    java.time.Instant expires = java.time.Instant.parse("2027-01-01T00:00:00Z");
    UUID tokenId = UUID.randomUUID();
    io.vertx.core.json.JsonObject json = new io.vertx.core.json.JsonObject(TokenCommand.json(
      new dev.conclave.platform.auth.TokenService.IssuedToken("a.b.c", tokenId, member.id(), expires), member));
    assertThat(json.getMap()).containsOnlyKeys("token", "tokenId", "principalId", "type", "name", "expiresAt");
    assertThat(json.getString("token")).isEqualTo("a.b.c");
    assertThat(json.getString("tokenId")).isEqualTo(tokenId.toString());
    assertThat(json.getString("principalId")).isEqualTo(member.id().toString());
    assertThat(json.getString("type")).isEqualTo("client");
    assertThat(json.getString("name")).isEqualTo("json-member");
    assertThat(json.getString("expiresAt")).isEqualTo("2027-01-01T00:00:00Z");
    assertThat(json.encode()).doesNotContain("\n");
  }

  private static TokenCommand command(String... args) {
    TokenCommand command = new TokenCommand();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  private static List<String> capabilities(UUID principal) {
    List<String> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT capability FROM auth.principal_capabilities WHERE principal_id = $1")
      .execute(Tuple.of(principal)))) {
      out.add(r.getString(0));
    }
    return out;
  }

}
