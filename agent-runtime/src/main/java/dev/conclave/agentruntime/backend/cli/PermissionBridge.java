package dev.conclave.agentruntime.backend.cli;

import dev.conclave.agentruntime.gate.GateDecision;
import dev.conclave.agentruntime.process.Executables;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The MCP server Claude Code asks before it runs a tool ({@code --permission-prompt-tool}). One per
 * run, for as long as the run lasts: Streamable HTTP on 127.0.0.1 at a port the system picks, and a
 * random bearer secret that only this run's {@code --mcp-config} carries; a request without it is
 * answered 401. It is the smallest MCP server that does the job, JSON-RPC 2.0 with JSON responses:
 * {@code initialize}, {@code notifications/initialized}, {@code ping}, {@code tools/list} and
 * {@code tools/call} of its one tool, {@value #TOOL}.
 *
 * <p>Claude Code calls the tool with {@code {"tool_name", "input", "tool_use_id"}} and reads the
 * text of the result as JSON: {@code {"behavior":"allow","updatedInput":{…}}} lets the tool run
 * with that input, {@code {"behavior":"deny","message":"…"}} refuses it and tells the model the
 * message. The decision is the tool gate's ({@link CliTools#gate}), a person's when the policy asks.
 *
 * <p>Both CLI backends use the hook endpoint below: claude-cli registers it with {@code --settings},
 * codex-cli in the thread's {@code config} (Codex's hooks take the same command, input and exit codes).
 * Claude Code does not call the prompt tool for every tool: the tools it deems safe (Read, Glob,
 * Grep, LS in the working directory, read-only Bash commands) run without it. So the bridge also
 * answers a {@code PreToolUse} hook ({@value #HOOK_PATH}), which Claude Code runs before every tool
 * call, read-only ones included (Claude Code's hooks reference: "Runs after Claude creates tool
 * parameters and before processing the tool call"; the Agent SDK's permission docs put hooks first
 * in the evaluation order, before rules, the permission mode and the prompt tool). The hook is a
 * {@code curl} command ({@link #hookSettings}) that posts the hook's input ({@code tool_name},
 * {@code tool_input}, {@code tool_use_id}) with this run's secret, read from an owner-only curl
 * config file, never the command line. The gate decides; an allowed tool is answered 200 with an
 * empty body (exit 0, no decision: Claude Code goes on with its own permission flow, and the prompt
 * tool, if Claude Code calls it, gets the same decision for the same tool_use_id); a refused one
 * 403 with the reason, which {@code curl --fail-with-body} prints to standard error and the command
 * turns into exit code 2, the documented "block the tool call, show stderr to Claude". Anything
 * that goes wrong (the bridge gone, curl missing, a timeout) also ends in exit code 2: fail closed.
 */
public final class PermissionBridge {

  private static final Logger LOG = LoggerFactory.getLogger(PermissionBridge.class);
  /** The server's name in {@code --mcp-config}: Claude Code names its tools {@code mcp__SERVER__TOOL}. */
  public static final String SERVER = "conclave";
  public static final String TOOL = "approve";
  /** {@code --permission-prompt-tool}'s value. */
  public static final String PROMPT_TOOL = "mcp__" + SERVER + "__" + TOOL;
  static final String PATH = "/mcp";
  /** Where the PreToolUse hook posts. */
  static final String HOOK_PATH = "/hook";
  /** MCP revisions this server speaks, oldest first; a client asking for another gets the newest. */
  private static final List<String> VERSIONS = List.of("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");
  private static final int MAX_BODY = 4 * 1024 * 1024;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final CliTools tools;
  private final UnaryOperator<String> hookToolName;
  private final String secret;
  private final AtomicInteger anonymous = new AtomicInteger();
  private final HttpServer server;

  private PermissionBridge(Vertx vertx, CliTools tools, UnaryOperator<String> hookToolName) {
    this.tools = tools;
    this.hookToolName = hookToolName;
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    this.secret = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    this.server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)).requestHandler(this::handle);
  }

  /** Starts a bridge for one run's tools; completes once it listens. */
  public static Future<PermissionBridge> start(Vertx vertx, CliTools tools) {
    return start(vertx, tools, UnaryOperator.identity());
  }

  /**
   * Starts a bridge whose hook endpoint renames the hook's {@code tool_name} before the gate sees it
   * (Codex's hooks name its shell tool {@code Bash}, which this runtime calls {@code shell}).
   */
  public static Future<PermissionBridge> start(Vertx vertx, CliTools tools, UnaryOperator<String> hookToolName) {
    PermissionBridge bridge = new PermissionBridge(vertx, tools, hookToolName);
    return bridge.server.listen().map(s -> bridge);
  }

  public int port() {
    return server.actualPort();
  }

  /** The {@code --mcp-config} JSON that points Claude Code at this bridge, secret included. */
  public String mcpConfig() {
    JsonObject entry = new JsonObject().put("type", "http").put("url", "http://127.0.0.1:" + port() + PATH)
      .put("headers", new JsonObject().put("Authorization", "Bearer " + secret));
    return new JsonObject().put("mcpServers", new JsonObject().put(SERVER, entry)).encode();
  }

  /** Writes {@link #mcpConfig} to a new temporary file only this user can read. */
  public Path writeMcpConfig() throws IOException {
    return ownerOnly("conclave-mcp-", ".json", mcpConfig());
  }

  /**
   * Writes the curl config the hook command reads (this bridge's hook URL, the secret, a time limit)
   * to a new temporary file only this user can read.
   *
   * @param maxTime how long curl waits for the gate's answer; past it the command fails and the tool is blocked
   */
  public Path writeHookCurlConfig(Duration maxTime) throws IOException {
    String config = String.join("\n",
      "url = \"http://127.0.0.1:" + port() + HOOK_PATH + "\"",
      "header = \"Authorization: Bearer " + secret + "\"",
      "header = \"Content-Type: application/json\"",
      "max-time = " + Math.max(1, maxTime.toSeconds()),
      "");
    return ownerOnly("conclave-hook-", ".curl", config);
  }

  /**
   * The {@code --settings} JSON that registers the PreToolUse hook for every tool (matcher {@code *}):
   * {@code curl -s --fail-with-body -K CONFIG --data-binary @- >&2}, whose failure ends in exit code 2 (with
   * the gate's reason, or a sentence saying the gate could not be reached, on standard error).
   *
   * @param curlConfig the file {@link #writeHookCurlConfig} wrote
   * @param timeout Claude Code's limit for the hook; longer than curl's, so curl fails first (and blocks)
   */
  public static String hookSettings(Path curlConfig, Duration timeout) {
    JsonObject matcher = new JsonObject().put("matcher", "*").put("hooks", new JsonArray().add(hookCommand(curlConfig, timeout)));
    return new JsonObject().put("hooks", new JsonObject().put("PreToolUse", new JsonArray().add(matcher))).encode();
  }

  /**
   * The hook handler both CLIs take in their hooks configuration: {@code {"type":"command","command":…,
   * "timeout":SECONDS}}.
   */
  public static JsonObject hookCommand(Path curlConfig, Duration timeout) {
    String path = curlConfig.toAbsolutePath().toString();
    if (path.contains("'")) {
      throw new IllegalArgumentException("the hook's curl config path has a quote in it: " + path);
    }
    // exit 22 is curl's "HTTP error": the body (the reason) is already on stderr; anything else is a gate not reached
    String command = "curl -s --fail-with-body -K '" + path + "' --data-binary @- >&2 || { c=$?; [ \"$c\" -eq 22 ] || echo "
      + "\"the Conclave tool gate could not be reached (curl exit $c); the tool was not run\" >&2; exit 2; }";
    return new JsonObject().put("type", "command").put("command", command).put("timeout", Math.max(1, timeout.toSeconds()));
  }

  /** Deletes a run's files (configs holding the secret); a file that cannot be deleted is left to the system's cleanup. */
  public static Future<Void> deleteAll(List<Path> files) {
    for (Path file : files) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // a temporary file: the system cleans it up
      }
    }
    return Future.succeededFuture();
  }

  /** Whether curl, which the hook command runs, is in one of the PATH's directories. */
  public static boolean curlOnPath() {
    return Executables.onPath("curl").isPresent();
  }

  /** Writes {@link #hookSettings} to a new temporary file only this user can read. */
  public static Path writeHookSettings(Path curlConfig, Duration timeout) throws IOException {
    return ownerOnly("conclave-settings-", ".json", hookSettings(curlConfig, timeout));
  }

  private static Path ownerOnly(String prefix, String suffix, String content) throws IOException {
    Path file = Files.createTempFile(prefix, suffix,
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content);
    return file;
  }

  /** Stops listening and drops open connections; a decision still pending reaches no one. */
  public Future<Void> close() {
    return server.close();
  }

  private void handle(HttpServerRequest req) {
    if (!PATH.equals(req.path()) && !HOOK_PATH.equals(req.path())) {
      req.response().setStatusCode(404).end();
      return;
    }
    if (!authorized(req.getHeader(HttpHeaders.AUTHORIZATION))) {
      LOG.warn("permission bridge refused a request without this run's secret from {}", req.remoteAddress());
      req.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer").end();
      return;
    }
    if (req.method() != HttpMethod.POST) {
      // no server-initiated stream (GET) and no sessions to delete: allowed by Streamable HTTP
      req.response().setStatusCode(405).putHeader(HttpHeaders.ALLOW, "POST").end();
      return;
    }
    if (tooLong(req.getHeader(HttpHeaders.CONTENT_LENGTH))) {
      req.response().setStatusCode(413).end();
      return;
    }
    if (HOOK_PATH.equals(req.path())) {
      req.body().onSuccess(body -> hook(req, body)).onFailure(err -> req.response().setStatusCode(400).end());
      return;
    }
    req.body().onSuccess(body -> answer(req, body)).onFailure(err -> req.response().setStatusCode(400).end());
  }

  /**
   * A PreToolUse hook's input: {@code {"hook_event_name":"PreToolUse","tool_name","tool_input",
   * "tool_use_id",…}}. 200 and no body lets the tool go on; 403 with the reason blocks it; 400 (which
   * blocks it too) for anything that is not such an input.
   */
  private void hook(HttpServerRequest req, Buffer body) {
    JsonObject in;
    try {
      in = new JsonObject(body.toString(StandardCharsets.UTF_8));
    } catch (DecodeException e) {
      req.response().setStatusCode(400).end("the Conclave tool gate got a hook input that is not JSON");
      return;
    }
    String tool = hookToolName.apply(in.getString("tool_name", ""));
    if (tool.isBlank() || !"PreToolUse".equals(in.getString("hook_event_name", "PreToolUse"))) {
      req.response().setStatusCode(400).end("the Conclave tool gate answers PreToolUse hooks only");
      return;
    }
    JsonObject input = in.getValue("tool_input") instanceof JsonObject o ? o : new JsonObject();
    String callId = tools.callId(in.getString("tool_use_id"), tool, input.encode(), () -> "hook-" + anonymous.incrementAndGet());
    LOG.info("hook asked tool={} id={}", tool, callId);
    tools.gate(callId, tool, input.encode()).onComplete(ar -> {
      GateDecision d = ar.succeeded() ? ar.result() : GateDecision.refuse("the tool gate failed: " + ar.cause().getMessage());
      if (req.response().ended() || req.response().closed()) {
        return;
      }
      if (d.allowed()) {
        req.response().setStatusCode(200).end();
      } else {
        req.response().setStatusCode(403).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8").end(d.reason());
      }
    });
  }

  private static boolean tooLong(String contentLength) {
    try {
      return contentLength != null && Long.parseLong(contentLength.strip()) > MAX_BODY;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private boolean authorized(String header) {
    String expected = "Bearer " + secret;
    return header != null && MessageDigest.isEqual(header.getBytes(StandardCharsets.UTF_8),
      expected.getBytes(StandardCharsets.UTF_8));
  }

  private void answer(HttpServerRequest req, Buffer body) {
    JsonObject message;
    try {
      String text = body.toString(StandardCharsets.UTF_8).strip();
      if (!text.startsWith("{")) {
        reply(req, error(null, -32600, "one JSON-RPC message object per request"));
        return;
      }
      message = new JsonObject(text);
    } catch (DecodeException e) {
      reply(req, error(null, -32700, "not JSON"));
      return;
    }
    Object id = message.getValue("id");
    String method = message.getString("method", "");
    if (id == null) {
      req.response().setStatusCode(202).end();   // a notification (notifications/initialized) or a response
      return;
    }
    JsonObject params = message.getJsonObject("params", new JsonObject());
    switch (method) {
      case "initialize" -> reply(req, result(id, new JsonObject()
        .put("protocolVersion", VERSIONS.contains(params.getString("protocolVersion"))
          ? params.getString("protocolVersion") : VERSIONS.get(VERSIONS.size() - 1))
        .put("capabilities", new JsonObject().put("tools", new JsonObject()))
        .put("serverInfo", new JsonObject().put("name", "conclave-tool-gate").put("version", "0.1.0"))));
      case "ping" -> reply(req, result(id, new JsonObject()));
      case "tools/list" -> reply(req, result(id, new JsonObject().put("tools", new JsonArray().add(toolDefinition()))));
      case "tools/call" -> call(req, id, params);
      default -> reply(req, error(id, -32601, "method not found: " + method));
    }
  }

  private void call(HttpServerRequest req, Object id, JsonObject params) {
    if (!TOOL.equals(params.getString("name"))) {
      reply(req, error(id, -32602, "unknown tool: " + params.getString("name")));
      return;
    }
    JsonObject args = params.getJsonObject("arguments", new JsonObject());
    String tool = args.getString("tool_name", "");
    JsonObject input = args.getValue("input") instanceof JsonObject in ? in : new JsonObject();
    String callId = tools.callId(args.getString("tool_use_id"), tool, input.encode(), () -> "permission-" + anonymous.incrementAndGet());
    LOG.info("permission asked tool={} id={}", tool, callId);
    tools.gate(callId, tool, input.encode()).onComplete(ar -> {
      GateDecision d = ar.succeeded() ? ar.result() : GateDecision.refuse("the tool gate failed: " + ar.cause().getMessage());
      JsonObject behavior = d.allowed()
        ? new JsonObject().put("behavior", "allow").put("updatedInput", input)
        : new JsonObject().put("behavior", "deny").put("message", d.reason());
      reply(req, result(id, new JsonObject().put("content",
        new JsonArray().add(new JsonObject().put("type", "text").put("text", behavior.encode())))));
    });
  }

  private static JsonObject toolDefinition() {
    JsonObject props = new JsonObject()
      .put("tool_name", new JsonObject().put("type", "string").put("description", "the tool Claude Code wants to run"))
      .put("input", new JsonObject().put("type", "object").put("description", "its input"))
      .put("tool_use_id", new JsonObject().put("type", "string").put("description", "the tool_use block's id"));
    return new JsonObject().put("name", TOOL)
      .put("description", "Decides whether a tool may run, by the agent's tool policy and, when it asks, a person.")
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", props)
        .put("required", new JsonArray().add("tool_name").add("input")));
  }

  private static JsonObject result(Object id, JsonObject result) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result);
  }

  private static JsonObject error(Object id, int code, String message) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", id)
      .put("error", new JsonObject().put("code", code).put("message", message));
  }

  private static void reply(HttpServerRequest req, JsonObject message) {
    if (!req.response().ended() && !req.response().closed()) {
      req.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(message.encode());
    }
  }
}
