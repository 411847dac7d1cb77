package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.ClientStreamEvent;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request left marked in flight on a node whose session is gone (its ending failed when the
 * session closed, for example because the database was unreachable) still ends for its client.
 */
class StrandedRequestTest {

  @Test
  void aRequestWhoseSessionClosedWithoutEndingItIsEndedByTheNode() {
    try (GatewayFixture gw = GatewayFixture.start()) {
      String token = gw.agentToken("stranded");
      try (RawAgent agent = gw.connect("stranded", token); EventTap tap = gw.admin().stream("stranded", null)) {
        String id = gw.admin().sendOk("stranded", "work", "stranded-1");
        assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(id);
        // what a failed ending at close time leaves behind: the request still 'dispatched' to an
        // epoch no session on this node holds, dispatched a while ago
        TestDatabase.execute(gw.node().database(), "UPDATE gateway.requests SET dispatch_epoch = 999,"
          + " dispatched_at = now() - interval '1 minute' WHERE id = '" + id + "'");
        // the node sweeps every 10 s
        ClientStreamEvent last = null;
        long deadline = System.nanoTime() + 25_000_000_000L;
        while (System.nanoTime() < deadline && (last == null || !EventTap.terminal(last))) {
          ClientStreamEvent e = tap.poll(500);
          last = e == null ? last : e;
        }
        assertThat(last).isNotNull();
        assertThat(last.getError().getMessage()).isEqualTo("agent disconnected");
        assertThat(last.getError().getRecoverable()).isTrue();
      }
    }
  }
}
