package dev.conclave.agentruntime.testing;

import dev.conclave.agent.PackToolInfo;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.PackTools;
import dev.conclave.agentruntime.gate.ToolGate;
import dev.conclave.agentruntime.gate.ToolPolicy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/** Backend contexts for tests: a policy, a working directory and pack tools the test defines. */
public final class TestContexts {

  private TestContexts() {
  }

  /** Pack tools answered by a function; records every call as {@code name input}. */
  public static final class FakePackTools implements PackTools {
    public final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<PackToolInfo> tools;
    private final BiFunction<String, String, PackToolResult> answer;

    public FakePackTools(List<PackToolInfo> tools, BiFunction<String, String, PackToolResult> answer) {
      this.tools = tools;
      this.answer = answer;
    }

    @Override public List<PackToolInfo> available() { return tools; }
    @Override public Future<PackToolResult> execute(String toolName, String inputJson) {
      calls.add(toolName + " " + inputJson);
      return Future.succeededFuture(answer.apply(toolName, inputJson));
    }
    @Override public Map<String, String> secrets() { return Map.of(); }
  }

  public static BackendContext context(Vertx vertx, Path workdir, ToolPolicy policy, PackTools tools, InjectionQueue injections,
                                       Duration approvalTimeout) {
    return new BackendContext(vertx, workdir, new ToolGate(vertx, policy, workdir, approvalTimeout), "", tools, injections,
      Duration.ofMillis(1500));
  }

  public static PackToolInfo tool(String name, String schema) {
    return new PackToolInfo(name, "test tool " + name, schema, List.of(), Duration.ZERO);
  }
}
