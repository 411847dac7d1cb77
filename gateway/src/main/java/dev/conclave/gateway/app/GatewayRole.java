package dev.conclave.gateway.app;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.api.AdminServiceEndpoint;
import dev.conclave.gateway.api.AgentStreamEndpoint;
import dev.conclave.gateway.api.AuditHttpApi;
import dev.conclave.gateway.api.AgentRetentionHttpApi;
import dev.conclave.gateway.api.BindingHttpApi;
import dev.conclave.gateway.api.ClientServiceEndpoint;
import dev.conclave.gateway.api.ClusterHttpApi;
import dev.conclave.gateway.api.ConversationHttpApi;
import dev.conclave.gateway.api.DashboardTopics;
import dev.conclave.gateway.api.EventStreams;
import dev.conclave.gateway.api.GatewayHttpApi;
import dev.conclave.gateway.api.GatewayToolsEndpoint;
import dev.conclave.gateway.api.TaskConversationsEndpoint;
import dev.conclave.gateway.api.PrincipalHttpApi;
import dev.conclave.gateway.api.RegistryHttpApi;
import dev.conclave.gateway.api.SecretsHttpApi;
import dev.conclave.gateway.api.SessionSockets;
import dev.conclave.gateway.api.TokenHttpApi;
import dev.conclave.gateway.clientsession.ClientSession;
import dev.conclave.gateway.clientsession.ConversationFeeds;
import dev.conclave.gateway.clientsession.RegistryOps;
import dev.conclave.gateway.clientsession.SessionRecords;
import dev.conclave.gateway.clientsession.TaskOps;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.cluster.MembershipWatcher;
import dev.conclave.gateway.cluster.PresenceReconciler;
import dev.conclave.gateway.cluster.StrandedRequestSweep;
import dev.conclave.gateway.control.ActingOwner;
import dev.conclave.gateway.control.AgentPrompts;
import dev.conclave.gateway.control.AgentTools;
import dev.conclave.gateway.control.Approvals;
import dev.conclave.gateway.control.Cancellation;
import dev.conclave.gateway.control.Injections;
import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.tools.GatewayPackTools;
import dev.conclave.gateway.tools.GatewayToolRunner;
import dev.conclave.gateway.tools.GatewayTools;
import dev.conclave.gateway.tools.builtin.GatewayBuiltins;
import dev.conclave.gateway.tools.builtin.QuestionWaiters;
import dev.conclave.gateway.control.TaskConversations;
import dev.conclave.gateway.directory.AgentDirectory;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.mailbox.WaitingRequests;
import dev.conclave.gateway.presence.NodeRegistry;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.registry.AgentRegistry;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.sessions.AgentSessions;
import dev.conclave.gateway.sessions.LocalSessions;
import dev.conclave.gateway.sessions.NodeCommandHandler;
import dev.conclave.gateway.sessions.SessionDrain;
import dev.conclave.gateway.sessions.SessionMetrics;
import dev.conclave.gateway.sessions.SessionStores;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.gateway.store.ClientSessionStore;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.gateway.store.RegistryStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.gateway.streaming.ConversationRelay;
import dev.conclave.gateway.streaming.Followers;
import dev.conclave.gateway.streaming.LiveEvents;
import dev.conclave.platform.access.AgentGrants;
import dev.conclave.platform.audit.AuditQuery;
import dev.conclave.platform.bridge.BridgeTopic;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.gateway.retention.AgentRetentionStore;
import dev.conclave.gateway.retention.ConversationRetention;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** The gateway role: wires the agent gateway's parts together and hands its services to the edge. */
public final class GatewayRole implements RoleModule {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayRole.class);
  /** Ledger transactions that may run at once; each group-commits the writes that queue behind it. */
  private static final int LEDGER_LANES = 2;

  private final Duration waitingReadInterval;

  public GatewayRole() {
    this(WaitingRequests.INTERVAL);
  }

  /** A gateway role that reads the requests waiting for their agents every {@code waitingReadInterval} (tests: not 15 s). */
  public GatewayRole(Duration waitingReadInterval) {
    this.waitingReadInterval = waitingReadInterval;
  }

  @Override
  public RoleName role() {
    return RoleName.GATEWAY;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of(new SchemaMigration("gateway"));
  }

  /** At start and when a member leaves, a gateway ends the requests in flight on nodes it cannot see. */
  @Override
  public boolean oneClusterPerDatabase() {
    return true;
  }

  @Override
  public Future<RunningRole> start(NodeContext ctx) {
    Vertx vertx = ctx.vertx();
    Pool pool = ctx.pool();
    GatewaySettings settings = GatewaySettings.from(ctx.config());
    AgentStore agents = new AgentStore(pool);
    RequestStore requests = new RequestStore(pool);
    LedgerStore ledger = new LedgerStore(pool, ctx.config().get(NodeSettings.MAX_EVENT_BYTES));
    ApprovalStore approvalStore = new ApprovalStore(pool);
    InjectionStore injectionStore = new InjectionStore(pool);
    UsageStore usage = new UsageStore(pool);
    BindingStore bindings = new BindingStore(pool);
    Presence presence = new Presence(vertx, ctx.config().clustered());
    NodeRegistry nodes = new NodeRegistry(vertx);
    AgentRouter router = new AgentRouter(vertx, presence, settings.commandTimeout());
    LedgerWriter writer = new LedgerWriter(pool, ledger, new LiveEvents(vertx), LEDGER_LANES);
    Terminations terminations = new Terminations(writer, requests, approvalStore, agents, ctx.clock());
    LocalSessions sessions = new LocalSessions();
    ctx.metrics().gauge(MetricNames.GATEWAY_AGENTS_CONNECTED, sessions, LocalSessions::size);
    io.micrometer.core.instrument.FunctionCounter.builder(MetricNames.GATEWAY_LEDGER_TRANSACTIONS, writer, LedgerWriter::transactions)
      .register(ctx.metrics());
    io.micrometer.core.instrument.FunctionCounter.builder(MetricNames.GATEWAY_LEDGER_WRITES, writer, LedgerWriter::units)
      .register(ctx.metrics());
    writer.measure(io.micrometer.core.instrument.Timer.builder(MetricNames.GATEWAY_LEDGER_WRITE_DURATION)
      .description("ledger writes from arrival to commit").publishPercentileHistogram().register(ctx.metrics()));
    ctx.metrics().gauge(MetricNames.GATEWAY_LEDGER_QUEUED, writer, LedgerWriter::queued);
    WaitingRequests waiting = new WaitingRequests(vertx, pool, waitingReadInterval).register(ctx.metrics());
    RegistryStore registryStore = new RegistryStore(pool);
    Lifecycle lifecycle = new Lifecycle(vertx, writer, registryStore, router, terminations, ctx.clock());
    SessionStores sessionStores = new SessionStores(ctx.principals(), agents, requests, writer, ledger, approvalStore, usage, injectionStore);
    Mailbox mailbox = new Mailbox(writer, ledger, sessions, bindings, ctx.access(), router, ctx.clock());
    AgentDirectory directory = new AgentDirectory(agents, presence, ctx.access());
    ConversationAccess conversations = new ConversationAccess(ctx.access());
    Followers followers = new Followers();
    QuestionStore questionStore = new QuestionStore(pool);
    Questions questions = new Questions(vertx, writer, questionStore, requests, ctx.clock());
    EventStreams streams = new EventStreams(vertx, ledger, approvalStore, questionStore, conversations, followers, ctx.tokens().live(),
      ctx.edge().liveAccess(), ctx.metrics().counter(MetricNames.GATEWAY_SUBSCRIBER_CATCHUPS));
    Approvals approvals = new Approvals(writer, approvalStore, requests, router, ctx.clock());
    ClientServiceEndpoint client = new ClientServiceEndpoint(mailbox, ledger, approvals, questions, directory, conversations,
      ctx.principals(), ctx.edge(), streams);
    ConversationHttpApi conversationsHttp = new ConversationHttpApi(mailbox, ledger, approvals, questions, conversations);
    ClusterHttpApi clusterHttp = new ClusterHttpApi(nodes, presence);
    ConversationRelay relay = new ConversationRelay(vertx);
    AgentGrants grants = new AgentGrants(pool);
    GatewayToolsEndpoint tools = new GatewayToolsEndpoint(new dev.conclave.gateway.control.RequestTraces(requests));
    // the gateway's own tools (ask_user, admin_*) run here; its agents see them beside every other tool
    QuestionWaiters waiters = new QuestionWaiters();
    GatewayToolRunner toolRunner = new GatewayToolRunner(vertx, ctx.nodeId(), ctx.metrics(), ctx.clock());
    GatewayTools ownTools = new GatewayTools(GatewayBuiltins.create(vertx, questions, waiters, settings.askUserTimeout(),
      new ActingOwner(pool), new AgentTools(presence, agents, ledger, usage, ctx.access()),
      new AgentPrompts(vertx, mailbox, requests, ledger, presence)), toolRunner);
    AgentSessions agentSessions = new AgentSessions(vertx, ctx.nodeId(), settings, sessionStores, new SessionMetrics(ctx.metrics()),
      ctx.edge(), ctx.tokens(), ctx.secrets(), new GatewayPackTools(ownTools, toolRunner, ctx.packTools()), ctx.clock(), sessions,
      presence, router, terminations, lifecycle);
    TaskConversationsEndpoint taskConversations = new TaskConversationsEndpoint(
      new TaskConversations(agents, bindings, mailbox, ctx.access(), ctx.clock()));
    AdminServiceEndpoint admin = new AdminServiceEndpoint(bindings, ctx.principals(), ctx.tokens(), ctx.edge());
    Cancellation cancellation = new Cancellation(requests, terminations, router);
    GatewayHttpApi http = new GatewayHttpApi(cancellation,
      new Injections(agents, injectionStore, router), injectionStore, requests, usage, directory, conversations);
    TokenHttpApi tokensHttp = new TokenHttpApi(ctx.tokens());
    AuditHttpApi auditHttp = new AuditHttpApi(new AuditQuery(pool));
    PrincipalHttpApi principalsHttp = new PrincipalHttpApi(ctx.principals(), ctx.tokens(), grants, ctx.edge().liveAccess());
    AgentRegistry registry = new AgentRegistry(registryStore, presence, ctx.access());
    RegistryHttpApi registryHttp = new RegistryHttpApi(registry, lifecycle);
    SessionSockets sessionSockets = new SessionSockets(ClientSession.opener(new RegistryOps(registry, registryStore, lifecycle),
        new TaskOps(mailbox, cancellation, approvals, requests, conversations.agents()),
        new SessionRecords(conversations, new ClientSessionStore(pool), lifecycle), new ConversationFeeds(vertx, ledger)),
      ctx.tokens().live(), ctx.edge().liveAccess(), followers, ctx.edge().guard());

    EdgeContribution edge = new EdgeContribution() {
      @Override
      public void bindGrpc(GrpcServer server) {
        server.addService(AgentStreamEndpoint.service(ctx.edge(), agentSessions));
        server.addService(client.service());
        server.addService(admin.service());
      }

      @Override
      public void bindHttp(Router router) {
        HttpRoutes routes = new HttpRoutes(router, ctx.edge());
        http.mount(routes);
        principalsHttp.mount(routes);
        tokensHttp.mount(routes);
        auditHttp.mount(routes);
        new SecretsHttpApi(ctx.secrets()).mount(routes);
        conversationsHttp.mount(routes);
        clusterHttp.mount(routes);
        new BindingHttpApi(bindings, ctx.edge().liveAccess()).mount(routes);
        new AgentRetentionHttpApi(new AgentRetentionStore(pool), ctx.config()).mount(routes);
        registryHttp.mount(routes);
        sessionSockets.mount(routes);
      }

      @Override
      public List<BridgeTopic> bridgeTopics() {
        return DashboardTopics.of(conversations, relay, ctx.edge().liveAccess());
      }
    };

    GatewayVerticle node = new GatewayVerticle(ctx.nodeId(), ctx.membership(), new NodeCommandHandler(sessions), tools, nodes,
      terminations, new MembershipWatcher(ctx.nodeId(), ctx.membership()::members, nodes, presence, terminations),
      new PresenceReconciler(ctx.nodeId(), presence, sessions, agents), new StrandedRequestSweep(ctx.nodeId(), sessions, terminations),
      followers);
    SessionDrain drain = new SessionDrain(vertx, ctx.nodeId(), sessions, followers);
    MessageConsumer<JsonObject> answers = waiters.listen(vertx);
    return answers.completion().compose(v -> ownTools.start(vertx)).compose(toolCalls -> vertx.deployVerticle(node).map(deployment -> {
      LOG.info("role gateway: CovenControl, ClientService, AdminService and /api/v1/gateway ready on node={}", ctx.nodeId());
      MessageConsumer<JsonObject> tasks = taskConversations.register(vertx);
      waiting.start();
      RetentionWorker retention = new RetentionWorker(vertx, pool, "gateway", ConversationRetention.rules(ctx.config()),
        RetentionSettings.from(ctx.config()), ctx.metrics());
      retention.start();
      return running(vertx, edge, drain, () -> {
        waiting.stop();
        retention.stop();
        return Future.join(tasks.unregister(), toolCalls.unregister(), answers.unregister()).transform(ar -> vertx.undeploy(deployment));
      });
    }));
  }

  private static RunningRole running(Vertx vertx, EdgeContribution edge, SessionDrain drain, Supplier<Future<Void>> stop) {
    return new RunningRole() {
      @Override
      public List<EdgeContribution> contributions() {
        return List.of(edge);
      }

      @Override
      public Future<Void> drain(Duration grace) {
        return drain.drain(grace);
      }

      @Override
      public Future<Void> stop() {
        return stop.get();
      }
    };
  }
}
