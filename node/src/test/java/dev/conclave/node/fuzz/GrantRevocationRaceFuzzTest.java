package dev.conclave.node.fuzz;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.support.BridgeClient;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.SessionSocket;
import dev.conclave.node.fuzz.FuzzNode.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The grant-revocation race (issue 40, finding 2). A member follows an agent through a grant on
 * every kind of follower that stays open (StreamEvents, a bridge subscription, a session socket)
 * while the agent's owner keeps writing to the conversation and the agent keeps answering; at a
 * generated moment the owner takes the grant back. Whatever was written once the revoke had been
 * answered must reach none of the grantee's followers; each must end with its status
 * ({@code PERMISSION_DENIED access_revoked}; an err frame 403 on the still open bridge socket; close
 * 4003); the grantee's next message is refused, and nothing is logged at ERROR. (MCP holds nothing
 * open, and its caller is the agent's own principal, which no grant concerns: McpAccessTest.)
 */
class GrantRevocationRaceFuzzTest {

  private static final String SURFACE = "grant revocation race";
  private static final String AGENT = "fz-race-agent";
  private static final AtomicInteger TRIES = new AtomicInteger();

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();

  /** One race: how long the writing runs before the revoke, how fast it writes, and how much is written after. */
  record Race(int revokeAfterMs, int pauseMs, int writtenAfter) {
  }

  @Property(tries = 12, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void nothingWrittenAfterTheRevokeReachesTheGrantee(@ForAll("races") Race race) throws Exception {
    strays.collect(f.logs);
    Findings found = new Findings(SURFACE, "grant " + AGENT, race);
    int n = TRIES.incrementAndGet();
    String tag = "fz-race-" + n + "-";
    Principal grantee = principal("fz-grantee-" + n, List.of(Roles.MEMBER));
    String granteeToken = token(grantee);
    String address = Addresses.dashboardConversation(AGENT);
    Clients owner = new Clients(f.grpc, f.tokens.get(Caller.MEMBER));
    AtomicBoolean revoked = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger answeredAfter = new AtomicInteger();
    RawAgent agent = raceAgent();
    FuzzNode.Answer granted = f.send(HttpMethod.POST, "/api/v1/gateway/agents/" + AGENT + "/grants", Caller.MEMBER, "application/json",
      new JsonObject().put("principalId", grantee.id().toString()).toBuffer().getBytes());
    if (granted.status() != 200) {
      agent.close();
      throw new IllegalStateException("the grant failed: " + granted.status() + " " + granted.body());
    }
    try (agent;
         EventTap stream = new Clients(f.grpc, granteeToken).stream(AGENT, null);
         SessionSocket session = SessionSocket.open(f.vertx, f.node.httpPort(), granteeToken);
         BridgeClient bridge = BridgeClient.connect(f.vertx, f.node.httpPort())) {
      session.configure(AGENT);
      bridge.subscribe(address, granteeToken);
      // the agent answers every message with a text that says whether the revoke had been answered when it wrote it
      Thread answering = new Thread(() -> {
        int i = 0;
        while (!stop.get() && !agent.ended()) {
          ServerMessage m = agent.poll(20);
          if (m != null && m.hasSendMessage()) {
            boolean after = revoked.get();
            String request = m.getSendMessage().getRequestId();
            agent.respond(request, MessageResponse.newBuilder().setText(tag + (after ? "after" : "before") + "-agent-" + i++));
            agent.respond(request, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
            if (after) {
              answeredAfter.incrementAndGet();
            }
          }
        }
      }, "fz-race-agent");
      Thread writing = new Thread(() -> {
        int i = 0;
        while (!stop.get()) {
          String label = revoked.get() ? "after" : "before";
          owner.send(AGENT, tag + label + "-owner-" + i, tag + i);
          i++;
          FuzzNode.sleep(race.pauseMs());
        }
      }, "fz-race-owner");
      answering.setDaemon(true);
      writing.setDaemon(true);
      answering.start();
      writing.start();

      FuzzNode.sleep(race.revokeAfterMs());
      FuzzNode.Answer answer = f.send(HttpMethod.DELETE, "/api/v1/gateway/agents/" + AGENT + "/grants/" + grantee.id(), Caller.MEMBER, null, null);
      revoked.set(true);
      if (answer.status() != 200) {
        found.add("the revoke failed: " + answer.status(), answer.body());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (answeredAfter.get() < race.writtenAfter() && System.nanoTime() < deadline) {
        FuzzNode.sleep(20);
      }
      if (answeredAfter.get() < race.writtenAfter()) {
        found.add("the agent stopped getting work after the revoke", answeredAfter.get() + " of " + race.writtenAfter() + " answered in 10 s");
      }
      stop.set(true);
      writing.join(5_000);
      answering.join(5_000);

      GrpcStatus end = stream.ended() || waitFor(stream::ended) ? stream.awaitEnd() : null;
      if (end != GrpcStatus.PERMISSION_DENIED || stream.endMessage() == null || !stream.endMessage().startsWith("access_revoked:")) {
        found.add("StreamEvents did not end with PERMISSION_DENIED access_revoked", end == null ? "still open" : end + " " + stream.endMessage());
      }
      for (ClientStreamEvent e = stream.poll(100); e != null; e = stream.poll(100)) {
        if (e.toString().contains(tag + "after")) {
          found.add("StreamEvents delivered what was written after the revoke", Findings.abbreviate(e.toString(), 300));
        }
      }
      Short closed = waitFor(session::isClosed) ? session.awaitClose() : null;
      if (closed == null || closed != 4003) {
        found.add("the session socket did not close with 4003", closed == null ? "still open" : String.valueOf(closed));
      }
      for (JsonObject frame = session.poll(100); frame != null; frame = session.poll(100)) {
        if (frame.encode().contains(tag + "after")) {
          found.add("the session socket delivered what was written after the revoke", Findings.abbreviate(frame.encode(), 300));
        }
      }
      Optional<JsonObject> ended = bridge.poll(BridgeClient.error(address), 5);
      if (ended.isEmpty() || ended.get().getInteger("failureCode", 0) != 403) {
        found.add("the bridge subscription did not end with an err frame (403)", String.valueOf(ended));
      }
      FuzzNode.sleep(200);
      for (JsonObject frame : bridge.seen()) {
        if (frame.encode().contains(tag + "after")) {
          found.add("the bridge delivered what was written after the revoke", Findings.abbreviate(frame.encode(), 300));
        }
      }
      if (bridge.isClosed()) {
        found.add("the bridge socket was closed", "only its subscription should end");
      }
      var refused = new Clients(f.grpc, granteeToken).send(AGENT, tag + "grantee-after", tag + "grantee");
      if (refused.status() != GrpcStatus.PERMISSION_DENIED) {
        found.add("the grantee's message after the revoke was not refused", refused.status() + " " + refused.message());
      }
    } finally {
      stop.set(true);
    }
    found.logs(f.logs.drain());
    found.close();
  }

  /** Waits up to 5 s for {@code done}; the followers' ends were sent before the revoke was answered, so they are already on their way. */
  private static boolean waitFor(java.util.function.BooleanSupplier done) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      FuzzNode.sleep(10);
    }
    return done.getAsBoolean();
  }

  @AfterProperty
  void nodeIsStillWell() {
    strays.endOfProperty(SURFACE, f);
  }

  @Provide
  Arbitrary<Race> races() {
    return Combinators.combine(Arbitraries.integers().between(0, 400), Arbitraries.integers().between(0, 15),
      Arbitraries.integers().between(1, 8)).as(Race::new);
  }

  // ---- set-up ---------------------------------------------------------------------------------

  /** The race's agent principal, owned by the fuzz node's member; its token (one principal, so each try's stream may register the id again). */
  private static String raceAgentToken;

  /** The race's agent, connected for one try (the node's own agent answers with Done only). */
  private RawAgent raceAgent() {
    if (raceAgentToken == null) {
      Principal p = GatewayFixture.await(f.node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT,
        "fz-race-agent-principal", PrincipalStatus.APPROVED, List.of(), Optional.empty(), Optional.of(f.memberId)));
      raceAgentToken = token(p);
    }
    RawAgent agent = RawAgent.open(f.grpc.client(), f.grpc.address(), raceAgentToken);
    agent.register(RawAgent.registration(AGENT));
    return agent;
  }

  private Principal principal(String name, List<String> roles) {
    return GatewayFixture.await(f.node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.CLIENT, name,
      PrincipalStatus.APPROVED, roles, Optional.empty()));
  }

  private String token(Principal p) {
    return GatewayFixture.await(f.node.runtime().context().tokens().issue(p, Duration.ofHours(1))).token();
  }
}
