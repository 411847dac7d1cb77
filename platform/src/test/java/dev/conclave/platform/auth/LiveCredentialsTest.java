package dev.conclave.platform.auth;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** What ends a watched stream: its token's expiry or revocation, its principal's revocation; nothing else. */
class LiveCredentialsTest {

  private final Vertx vertx = Vertx.vertx();
  private final LiveCredentials live = new LiveCredentials(vertx);

  @AfterEach
  void close() {
    vertx.close();
  }

  @Test
  void aTokenCallerIsCutWhenItsTokenExpires() throws Exception {
    Caller caller = new Caller(UUID.randomUUID(), PrincipalType.AGENT, Set.of(), Optional.of(UUID.randomUUID()),
      Instant.now().plusMillis(200));
    CompletableFuture<String> reason = new CompletableFuture<>();
    live.watch(caller, reason::complete);
    assertThat(reason.get(5, TimeUnit.SECONDS)).isEqualTo("the token expired");
  }

  @Test
  void anSshSignedCallerOutlivesItsSignatureWindowButNotARevocation() throws Exception {
    // the expiry of a signed call bounds when the signature may be used, not the stream it opened
    Caller signed = new Caller(UUID.randomUUID(), PrincipalType.AGENT, Set.of(), Optional.empty(), Instant.now().plusMillis(100));
    CompletableFuture<String> reason = new CompletableFuture<>();
    live.watch(signed, reason::complete);
    Thread.sleep(600);
    assertThat(reason).isNotDone();
    live.principalRevoked(signed.principalId());
    assertThat(reason.get(5, TimeUnit.SECONDS)).isEqualTo("the principal was deleted or disabled");
  }

  @Test
  void aReleasedWatchIsNeverCalled() throws Exception {
    Caller caller = new Caller(UUID.randomUUID(), PrincipalType.CLIENT, Set.of(), Optional.of(UUID.randomUUID()),
      Instant.now().plusMillis(150));
    CompletableFuture<String> reason = new CompletableFuture<>();
    live.watch(caller, reason::complete).run();
    live.tokenRevoked(caller.tokenId().orElseThrow());
    Thread.sleep(400);
    assertThat(reason).isNotDone();
  }
}
