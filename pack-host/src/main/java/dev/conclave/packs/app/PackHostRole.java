package dev.conclave.packs.app;

import dev.conclave.contract.Addresses;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.PackSettings;
import dev.conclave.packs.api.McpHttpEndpoint;
import dev.conclave.packs.api.PackNodeEndpoint;
import dev.conclave.packs.api.PackServiceEndpoint;
import dev.conclave.packs.api.PacksHttpApi;
import dev.conclave.packs.builtin.Builtins;
import dev.conclave.packs.builtin.GatewayCalls;
import dev.conclave.packs.builtin.base.BasePack;
import dev.conclave.packs.builtin.mail.MailPack;
import dev.conclave.packs.builtin.notes.NotesPack;
import dev.conclave.packs.connections.LocalPacks;
import dev.conclave.packs.connections.PackRegistrations;
import dev.conclave.packs.connections.ResultRouter;
import dev.conclave.packs.dispatch.ToolDispatcher;
import dev.conclave.packs.mcp.McpProtocol;
import dev.conclave.packs.mcp.McpSessions;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.packs.store.ToolCallLog;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.bridge.BridgeTopic;
import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.packs.store.ToolCallRetention;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.HttpRoutes;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.grpc.server.GrpcServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.List;

/** The pack-tool host role: wires PackService, the tool registry and dispatch, its built-in packs and MCP (the gateway runs its own tools). */
public final class PackHostRole implements RoleModule {

  private static final Logger LOG = LoggerFactory.getLogger(PackHostRole.class);

  @Override
  public RoleName role() {
    return RoleName.PACK_HOST;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of(new SchemaMigration("packs"));
  }

  @Override
  public Future<RunningRole> start(NodeContext ctx) {
    Vertx vertx = ctx.vertx();
    PackSettings settings = PackSettings.from(ctx.config());
    ToolRegistry registry = new ToolRegistry(vertx, ctx.membership());
    LocalPacks local = new LocalPacks();
    ctx.metrics().gauge(MetricNames.PACKS_CONNECTED, local, LocalPacks::size);
    GatewayCalls gateway = new GatewayCalls(vertx);
    Builtins builtins = new Builtins(List.of(
      BasePack.create(ctx.pool(), ctx.clock()),
      NotesPack.create(ctx.pool(), ctx.clock()),
      MailPack.create(ctx.pool(), ctx.clock())));
    ToolCallLog calls = new ToolCallLog(ctx.pool(), ctx.metrics());
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, ctx.nodeId(), registry, local, builtins, calls, ctx.metrics(), ctx.clock());
    ResultRouter results = new ResultRouter(vertx, ctx.nodeId(), local, registry, ctx.metrics());
    PackServiceEndpoint packService = new PackServiceEndpoint(ctx.edge(),
      new PackRegistrations(vertx, ctx.nodeId(), ctx.membership(), ctx.principals(), registry, local, settings.pingInterval(),
        ctx.tokens().live(), ctx.edge()), results);
    JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(JsonMapper.shared());
    McpHttpEndpoint mcp = new McpHttpEndpoint(ctx.tokens(), ctx.edge(), new McpSessions(vertx, ctx.access()), new McpProtocol(json, ctx.packTools(),
      new dev.conclave.packs.mcp.McpToolSpans(vertx, gateway)), json,
      ctx.metrics());
    PacksHttpApi http = new PacksHttpApi(registry, builtins, calls, ctx.packTools());

    EdgeContribution edge = new EdgeContribution() {
      @Override
      public void bindGrpc(GrpcServer server) {
        server.addService(packService.service());
      }

      @Override
      public void bindHttp(Router router) {
        mcp.mount(router);
        http.mount(new HttpRoutes(router, ctx.edge()));
      }

      @Override
      public List<BridgeTopic> bridgeTopics() {
        // the packs view is part of the admin console
        return List.of(BridgeTopic.exact(Addresses.PACK_EVENTS, Audience.ADMINS));
      }
    };
    PackHostVerticle node = new PackHostVerticle(ctx.nodeId(), ctx.membership(), registry, builtins, calls,
      new PackNodeEndpoint(ctx.nodeId(), dispatcher, results, local));
    RetentionWorker retention = new RetentionWorker(vertx, ctx.pool(), "packs",
      List.of(ToolCallRetention.rule(ctx.config().get(PackSettings.TOOL_CALL_RETENTION))), RetentionSettings.from(ctx.config()), ctx.metrics());
    return vertx.deployVerticle(node).map(deployment -> {
      retention.start();
      LOG.info("role pack-host: PackService, {} built-in tools and MCP at {} ready on node={}",
        builtins.packs().stream().mapToInt(p -> p.tools().size()).sum(), McpHttpEndpoint.PATH, ctx.nodeId());
      return running(vertx, local, deployment, edge, retention);
    });
  }

  private static RunningRole running(Vertx vertx, LocalPacks local, String deployment, EdgeContribution edge,
                                         RetentionWorker retention) {
    return new RunningRole() {
      @Override
      public List<EdgeContribution> contributions() {
        return List.of(edge);
      }

      @Override
      public Future<Void> drain(Duration grace) {
        LOG.info("role pack-host: draining packs={}", local.size());
        local.startDraining();
        local.all().forEach(c -> c.close("node stopping", PackErrors.nodeStopping()));
        Promise<Void> drained = Promise.promise();
        long deadline = System.nanoTime() + Math.min(grace.toMillis(), 3000) * 1_000_000;
        vertx.setPeriodic(50, id -> {
          if (local.size() == 0 || System.nanoTime() > deadline) {
            vertx.cancelTimer(id);
            drained.complete();
          }
        });
        return drained.future();
      }

      @Override
      public Future<Void> stop() {
        retention.stop();
        return vertx.undeploy(deployment);
      }
    };
  }
}
