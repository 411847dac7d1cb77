package dev.conclave.agent.internal;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The client's context comes from public Vert.x API and behaves as the internal one did. */
class ClientContextTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void eachClientGetsANewEventLoopContextEvenWhenBuiltOnAnEventLoop() throws Exception {
    ClientContext a = ClientContext.create(vertx);
    ClientContext b = ClientContext.create(vertx);
    CompletableFuture<ClientContext> fromLoop = new CompletableFuture<>();
    a.runOnContext(() -> fromLoop.complete(ClientContext.create(vertx)));
    ClientContext c = fromLoop.get(5, TimeUnit.SECONDS);
    assertThat(contextOf(a)).isNotSameAs(contextOf(b)).isNotSameAs(contextOf(c));
    assertThat(contextOf(a).isEventLoopContext()).isTrue();
  }

  @Test
  void aPromiseCompletedOffTheContextCallsBackOnIt() throws Exception {
    ClientContext context = ClientContext.create(vertx);
    Promise<String> p = context.promise();
    CompletableFuture<Boolean> onContext = new CompletableFuture<>();
    p.future().onComplete(ar -> onContext.complete(context.inThread() && "x".equals(ar.result())));
    assertThat(p.tryComplete("x")).isTrue();
    assertThat(p.tryComplete("y")).isFalse();
    assertThat(onContext.get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void runIsInlineOnTheContextAndDispatchedElsewhere() throws Exception {
    ClientContext context = ClientContext.create(vertx);
    assertThat(context.inThread()).isFalse();
    CompletableFuture<Boolean> inline = new CompletableFuture<>();
    context.runOnContext(() -> {
      boolean[] ran = new boolean[1];
      context.run(() -> ran[0] = true);
      inline.complete(ran[0]);
    });
    assertThat(inline.get(5, TimeUnit.SECONDS)).isTrue();
  }

  private static io.vertx.core.Context contextOf(ClientContext c) throws Exception {
    CompletableFuture<io.vertx.core.Context> f = new CompletableFuture<>();
    c.runOnContext(() -> f.complete(Vertx.currentContext()));
    return f.get(5, TimeUnit.SECONDS);
  }
}
