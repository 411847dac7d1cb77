package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.platform.access.AccessChange;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.Binding;
import io.vertx.core.Future;

import java.util.UUID;

/**
 * Creating, moving and deleting bindings, written once for both ways an admin does it
 * ({@code AdminService} over gRPC, {@code /api/v1/gateway/bindings} over HTTP): the fields are checked
 * ({@link BindingFields}) before anything is written, and a change is announced ({@link LiveAccess}),
 * because it changes who may read the conversation: its followers that lost access end before the
 * answer.
 */
final class BindingAdmin {

  private final BindingStore bindings;
  private final LiveAccess access;

  BindingAdmin(BindingStore bindings, LiveAccess access) {
    this.bindings = bindings;
    this.access = access;
  }

  Future<Binding> create(Caller caller, String frontend, String channelId, String agentId) {
    try {
      BindingFields.check(frontend, channelId, agentId);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return bindings.create(frontend, channelId, agentId, caller.principalId().toString()).compose(this::announced);
  }

  Future<Binding> moveTo(UUID id, String agentId) {
    try {
      BindingFields.checkAgent(agentId);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return bindings.updateAgent(id, agentId).compose(this::announced);
  }

  /** Deletes the binding and answers it; {@code binding_not_found} when there is none. */
  Future<Binding> delete(UUID id) {
    return bindings.delete(id).compose(deleted -> deleted.isEmpty() ? Future.failedFuture(GatewayErrors.bindingNotFound(id.toString()))
      : announced(deleted.get()));
  }

  /** Announces that {@code binding}'s conversation routes elsewhere now; completes with it once its followers here were re-checked. */
  private Future<Binding> announced(Binding binding) {
    return access.announce(AccessChange.conversation(binding.getFrontend() + ":" + binding.getChannelId())).map(binding);
  }
}
