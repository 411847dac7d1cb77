package dev.conclave.platform.auth;

import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * {@code CONCLAVE_WRITE_ADMIN_TOKEN=off} (the Kubernetes base): a node whose data dir does not last
 * writes no admin token at start, so pods no longer pile up a new one-year token each; the admin
 * principal exists all the same, for the one token issued with {@code conclave-node token --admin}.
 */
class AdminTokenOffTest {

  @Test
  void noTokenIsWrittenButTheAdminPrincipalExists() throws Exception {
    try (TestNode node = TestNode.builder().role(new EchoRole()).env("CONCLAVE_WRITE_ADMIN_TOKEN", "off").start()) {
      assertThat(node.runtime().config().adminTokenFile()).doesNotExist();
      Optional<Principal> admin = await(node.runtime().context().principals().find(AdminBootstrap.ADMIN_PRINCIPAL_ID));
      assertThat(admin).as("the bootstrap admin principal").isPresent();
      assertThat(admin.get().roles()).contains(Roles.OWNER, Roles.ADMIN);
      // what `conclave-node token --admin` does: a token for it, accepted by the node
      String token = await(node.runtime().context().tokens().issue(admin.get(), Duration.ofHours(1))).token();
      assertThat(await(node.runtime().context().tokens().authenticate(token)).principalId()).isEqualTo(AdminBootstrap.ADMIN_PRINCIPAL_ID);
      assertThat(Files.list(node.runtime().config().dataDir()).map(p -> p.getFileName().toString())).doesNotContain("admin.token");
    }
  }
}
