package dev.conclave.packs.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.packs.support.PackHost;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway runs its own tools (ask_user, admin_*), yet their calls are in the pack host's call
 * record ({@code packs.tool_calls}, {@code GET /api/v1/packs/calls/{agentId}}) as every other call is.
 */
class GatewayToolCallRecordTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start();
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void aCallOfTheGatewaysOwnToolIsRecordedWithItsPackAndOutcome() throws InterruptedException {
    try (PackHost.ToolAgent agent = host.agent("recorded-asker", "ui")) {
      assertThat(agent.run("rec-1", "ask_user", "{\"question\":\"\",\"options\":[{\"label\":\"a\"}]}").getError())
        .isEqualTo("question is required");
    }
    List<Row> rows = query("SELECT agent_id, tool_name, pack_id, outcome, origin FROM packs.tool_calls WHERE client_request_id = $1", "rec-1");
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getString("agent_id")).isEqualTo("recorded-asker");
    assertThat(rows.get(0).getString("tool_name")).isEqualTo("ask_user");
    assertThat(rows.get(0).getString("pack_id")).isEqualTo("builtin:ui");
    assertThat(rows.get(0).getString("outcome")).isEqualTo("tool_error");
    assertThat(rows.get(0).getString("origin")).isEqualTo("agent-stream");
  }

  private static List<Row> query(String sql, Object... params) throws InterruptedException {
    var pool = host.gw().node().runtime().context().pool();
    List<Row> out = new ArrayList<>();
    // the record is written in batches: wait for it, up to 10 s
    for (int attempt = 0; attempt < 100 && out.isEmpty(); attempt++) {
      GatewayFixture.await(pool.preparedQuery(sql).execute(Tuple.from(params))).forEach(out::add);
      if (out.isEmpty()) {
        Thread.sleep(100);
      }
    }
    return out;
  }
}
