package dev.conclave.agent.examples;

import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import io.vertx.core.Future;

// The backend example of the SDK README, verbatim: ReadmeExamplesTest runs it.
public final class MyBackend implements AgentBackend {
  @Override
  public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    // session.resumeSessionId(): the backend session to continue, if this thread has one
    return callbacks.thinking("calling the model")
      .compose(v -> callbacks.canUseTool("tu-1", "bash", "{\"cmd\":\"ls\"}"))   // human approval
      .compose(allowed -> allowed ? listFiles() : Future.succeededFuture("nothing (not allowed)"))
      .compose(out -> callbacks.textChunk("Here is what I found: " + out).map(out))
      .map(out -> BackendResponse.success("Here is what I found: " + out, "sess-42", 1));
  }

  private Future<String> listFiles() {
    return Future.succeededFuture("a.txt");   // your tool call
  }

  @Override public Future<Void> cancel(BackendSession session) { /* interrupt the run */ return Future.succeededFuture(); }
  @Override public Future<Void> shutdown() { /* close connections */ return Future.succeededFuture(); }
}
