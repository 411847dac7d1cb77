package dev.conclave.agent.pack;

import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Registering the manifest, the welcome header, and the refusals that stop a pack for good. */
class PackRegistrationTest extends PackTestBase {

  @Test
  void sendsTheManifestWithThePackToken() {
    FakePackHost host = host();
    PackTool weather = PackTool.builder("get_weather").description("Current weather for a city")
      .inputSchema(new JsonObject().put("type", "object").put("required", List.of("city")))
      .requiredCapabilities("chat").timeoutSeconds(12)
      .handler(call -> Future.succeededFuture("{}")).build();
    started(builder(host.endpoint()).tool(weather).tool(echo("echo")));

    PackManifest m = host.nextStream().manifest();
    assertThat(m.getPackId()).isEqualTo(PACK_ID);
    assertThat(m.getVersion()).isEqualTo("1.2.3");
    assertThat(m.getToolsList()).extracting(ToolDefinition::getName).containsExactly("get_weather", "echo");
    ToolDefinition d = m.getTools(0);
    assertThat(d.getDescription()).isEqualTo("Current weather for a city");
    assertThat(new JsonObject(d.getInputSchemaJson())).isEqualTo(new JsonObject("{\"type\":\"object\",\"required\":[\"city\"]}"));
    assertThat(d.getRequiredCapabilitiesList()).containsExactly("chat");
    assertThat(d.getTimeoutSeconds()).isEqualTo(12);
    assertThat(m.getTools(1).getInputSchemaJson()).isEqualTo("{\"type\":\"object\"}");
    assertThat(host.authorizations()).containsExactly("Bearer " + TOKEN);
  }

  @Test
  void reportsTheToolsTheWelcomeRejects() {
    FakePackHost host = host().onRegister((stream, manifest) -> stream.welcome("echo"));
    List<PackRegistration> heard = new CopyOnWriteArrayList<>();
    PackClient pack = started(builder(host.endpoint()).tool(echo("get_weather")).tool(echo("echo"))
      .listener(new PackListener() {
        @Override
        public void onRegistered(PackRegistration registration, boolean reconnect) {
          heard.add(registration);
        }
      }));

    PackRegistration reg = pack.registration().orElseThrow();
    assertThat(reg.liveTools()).containsExactly("get_weather");
    assertThat(reg.rejectedTools()).containsExactly("echo");
    assertThat(reg.isLive("echo")).isFalse();
    assertThat(reg.endpoint()).isEqualTo(host.endpoint());
    assertThat(heard).containsExactly(reg);
  }

  @Test
  void readsAnUnpaddedWelcomeToo() {
    FakePackHost host = host().onRegister((stream, manifest) -> stream.welcomeUnpadded("a"));
    PackRegistration reg = Wait.result(client(builder(host.endpoint()).tool(echo("a")).tool(echo("bb"))).start());

    assertThat(reg.rejectedTools()).containsExactly("a");
    assertThat(reg.liveTools()).containsExactly("bb");
  }

  @Test
  void alreadyExistsStopsThePack() {
    FakePackHost host = host().onRegister((stream, manifest) ->
      stream.endWith(GrpcStatus.ALREADY_EXISTS, "every tool of pack weather is owned by another pack"));
    PackClient pack = client(builder(host.endpoint()).tool(echo("get_weather")));

    Throwable failure = Wait.failure(pack.start());

    assertThat(failure).isInstanceOf(PackStatusException.class);
    PackStatusException e = (PackStatusException) failure;
    assertThat(e.status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
    assertThat(e.statusMessage()).isEqualTo("every tool of pack weather is owned by another pack");
    assertThat(Wait.failure(pack.closed())).isSameAs(failure);
    host.nextStream();
    host.expectNoStream(Duration.ofMillis(500));
  }

  @Test
  void permissionDeniedStopsThePack() {
    FakePackHost host = host().onRegister((stream, manifest) ->
      stream.endWith(GrpcStatus.PERMISSION_DENIED, "principal is an agent, not a pack"));
    PackClient pack = client(builder(host.endpoint()).tool(echo("get_weather")));

    PackStatusException e = (PackStatusException) Wait.failure(pack.start());

    assertThat(e.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(e.statusMessage()).isEqualTo("principal is an agent, not a pack");
    host.nextStream();
    host.expectNoStream(Duration.ofMillis(500));
  }

  @Test
  void anInvalidManifestStopsThePackWithTheServersReason() {
    FakePackHost host = host().onRegister((stream, manifest) ->
      stream.endWith(GrpcStatus.INVALID_ARGUMENT, "tools[0].input_schema_json: not a JSON object"));
    PackClient pack = client(builder(host.endpoint()).tool(echo("get_weather")));

    PackStatusException e = (PackStatusException) Wait.failure(pack.start());

    assertThat(e.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(e.getMessage()).contains("tools[0].input_schema_json");
    host.nextStream();
    host.expectNoStream(Duration.ofMillis(500));
  }

  @Test
  void aRefusedTokenStopsThePack() {
    FakePackHost host = host().requireToken("another-token");
    List<Throwable> stopped = new CopyOnWriteArrayList<>();
    PackClient pack = client(builder(host.endpoint()).tool(echo("get_weather")).listener(new PackListener() {
      @Override
      public void onStopped(Throwable cause) {
        stopped.add(cause);
      }
    }));

    PackStatusException e = (PackStatusException) Wait.failure(pack.start());

    assertThat(e.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(e.statusMessage()).isEqualTo("token rejected");
    Wait.until("the listener heard the stop", () -> stopped.size() == 1);
    assertThat(stopped.get(0)).isSameAs(e);
    Wait.sleep(300);
    assertThat(host.authorizations()).hasSize(1);
  }

  @Test
  void triesTheNextEndpointWhenOneIsDown() {
    FakePackHost host = host();
    Endpoint dead = new Endpoint("127.0.0.1", dev.conclave.agent.testing.FakeGateway.deadPort());
    PackRegistration reg = Wait.result(client(builder(dead, host.endpoint()).tool(echo("get_weather"))).start());

    assertThat(reg.endpoint()).isEqualTo(host.endpoint());
  }

  @Test
  void closingBeforeRegistrationFailsStart() {
    Endpoint dead = new Endpoint("127.0.0.1", dev.conclave.agent.testing.FakeGateway.deadPort());
    PackClient pack = client(builder(dead).tool(echo("get_weather")));
    Future<PackRegistration> start = pack.start();

    Wait.result(pack.close());

    assertThat(Wait.failure(start)).isInstanceOf(ClientStoppedException.class);
    Wait.result(pack.closed());
  }
}
