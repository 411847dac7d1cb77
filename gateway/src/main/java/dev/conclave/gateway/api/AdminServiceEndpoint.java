package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.GrpcEndpoint;
import dev.conclave.proto.coven.AdminServiceGrpcService;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.CreateTokenResponse;
import dev.conclave.proto.coven.DeleteBindingResponse;
import dev.conclave.proto.coven.DeletePrincipalResponse;
import dev.conclave.proto.coven.ListBindingsResponse;
import dev.conclave.proto.coven.ListPrincipalsResponse;
import io.vertx.core.Future;
import io.vertx.grpc.server.Service;

import java.security.MessageDigest;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * {@code coven.AdminService}: bindings, tokens and principals; every method needs the admin or owner
 * role. A binding created, moved or deleted changes who may read its conversation: {@link BindingAdmin}
 * announces the change, and its followers that lost access end before the answer.
 */
public final class AdminServiceEndpoint {

  private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-fA-F]{64}");

  private final BindingStore bindings;
  private final BindingAdmin changes;
  private final PrincipalStore principals;
  private final TokenService tokens;
  private final EdgeSecurity edge;

  public AdminServiceEndpoint(BindingStore bindings, PrincipalStore principals, TokenService tokens, EdgeSecurity edge) {
    this.bindings = bindings;
    this.changes = new BindingAdmin(bindings, edge.liveAccess());
    this.principals = principals;
    this.tokens = tokens;
    this.edge = edge;
  }

  public Service service() {
    return GrpcEndpoint.service(AdminServiceGrpcService.SERVICE_NAME, AdminServiceGrpcService.SERVICE_DESCRIPTOR, edge)
      .unary(AdminServiceGrpcService.ListBindings, Audience.ADMINS, Resource.NONE, admin((caller, req) -> bindings.list(
          req.hasFrontend() ? Optional.of(req.getFrontend()) : Optional.empty(),
          req.hasAgentId() ? Optional.of(req.getAgentId()) : Optional.empty())
        .map(list -> ListBindingsResponse.newBuilder().addAllBindings(list).build())))
      .unary(AdminServiceGrpcService.CreateBinding, Audience.ADMINS, Resource.NONE, admin((caller, req) ->
        changes.create(caller, req.getFrontend(), req.getChannelId(), req.getAgentId())))
      .unary(AdminServiceGrpcService.UpdateBinding, Audience.ADMINS, Resource.NONE, admin((caller, req) ->
        changes.moveTo(uuid("id", req.getId()), req.getAgentId())))
      .unary(AdminServiceGrpcService.DeleteBinding, Audience.ADMINS, Resource.NONE, admin((caller, req) -> changes.delete(uuid("id", req.getId()))
        .map(DeleteBindingResponse.getDefaultInstance())))
      .unary(AdminServiceGrpcService.CreateToken, Audience.ADMINS, Resource.NONE, admin((caller, req) -> {
        UUID id = uuid("principal_id", req.getPrincipalId());
        Duration ttl = req.getTtlSeconds() == 0 ? TokenService.DEFAULT_TTL : Duration.ofSeconds(req.getTtlSeconds());
        return principals.find(id)
          .compose(p -> tokens.issue(p.orElseThrow(() -> AuthErrors.unknownPrincipal(id.toString())), ttl))
          .map(t -> CreateTokenResponse.newBuilder().setToken(t.token())
            .setExpiresAt(DateTimeFormatter.ISO_INSTANT.format(t.expiresAt())).build());
      }))
      .unary(AdminServiceGrpcService.ListPrincipals, Audience.ADMINS, Resource.NONE, admin((caller, req) -> principals.list(
          req.hasType() ? Optional.of(type(req.getType())) : Optional.empty(),
          req.hasStatus() ? Optional.of(status(req.getStatus())) : Optional.empty())
        .map(list -> ListPrincipalsResponse.newBuilder().addAllPrincipals(list.stream().map(AdminServiceEndpoint::wire).toList()).build())))
      .unary(AdminServiceGrpcService.CreatePrincipal, Audience.ADMINS, Resource.NONE, admin(this::createPrincipal))
      .unary(AdminServiceGrpcService.DeletePrincipal, Audience.ADMINS, Resource.NONE, admin((caller, req) -> {
        UUID id = uuid("id", req.getId());
        return principals.delete(id).compose(deleted -> {
          if (!deleted) {
            return Future.failedFuture(AuthErrors.unknownPrincipal(id.toString()));
          }
          return tokens.revokePrincipal(id, "principal deleted").map(revoked -> DeletePrincipalResponse.getDefaultInstance());
        });
      }))
      .build();
  }

  private Future<dev.conclave.proto.coven.Principal> createPrincipal(Caller caller, CreatePrincipalRequest req) {
    PrincipalType type = type(req.getType());
    DisplayNames.check("display_name", req.getDisplayName());
    for (String role : req.getRolesList()) {
      if (!Roles.ALL.contains(role)) {
        throw GatewayErrors.invalid("roles", "contains unknown role '" + role + "' (known: " + String.join(", ", Roles.ALL) + ")");
      }
    }
    Optional<String> fp = req.hasPubkeyFp() && !req.getPubkeyFp().isEmpty() ? Optional.of(fingerprint(req.getPubkeyFp()))
      : req.hasPubkey() && !req.getPubkey().isEmpty() ? Optional.of(fingerprintOfKey(req.getPubkey())) : Optional.empty();
    // an agent created by an admin belongs to that admin until it grants others access
    Optional<UUID> owner = type == PrincipalType.AGENT ? Optional.of(caller.principalId()) : Optional.empty();
    return principals.create(UUID.randomUUID(), type, req.getDisplayName(), PrincipalStatus.APPROVED, req.getRolesList(), fp, owner)
      .recover(err -> Future.failedFuture(dev.conclave.platform.db.PgErrors.uniqueViolation(err) ? GatewayErrors.fingerprintTaken() : err))
      .map(AdminServiceEndpoint::wire);
  }

  /** Wraps a handler so that validation exceptions become failures (the audience already admitted only admins). */
  private static <Q, R> GrpcEndpoint.Unary<Q, R> admin(GrpcEndpoint.Unary<Q, R> handler) {
    return (caller, request) -> {
      try {
        return handler.call(caller, request);
      } catch (ConclaveException e) {
        return Future.failedFuture(e);
      }
    };
  }

  static dev.conclave.proto.coven.Principal wire(Principal p) {
    dev.conclave.proto.coven.Principal.Builder b = dev.conclave.proto.coven.Principal.newBuilder()
      .setId(p.id().toString())
      .setType(p.type().wire())
      .setDisplayName(p.displayName())
      .setStatus(p.status().wire())
      .setCreatedAt(DateTimeFormatter.ISO_INSTANT.format(p.createdAt()))
      .addAllRoles(p.roles());
    p.pubkeyFingerprint().ifPresent(b::setPubkeyFp);
    return b.build();
  }

  private static void require(String field, String value) {
    if (value == null || value.isBlank()) {
      throw GatewayErrors.required(field);
    }
  }

  private static UUID uuid(String field, String value) {
    require(field, value);
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.invalid(field, "must be a UUID, got '" + value + "'");
    }
  }

  private static PrincipalType type(String value) {
    return parse("type", value, PrincipalType::of, "client, agent, pack");
  }

  private static PrincipalStatus status(String value) {
    return parse("status", value, PrincipalStatus::of, "pending, approved, revoked");
  }

  private static <T> T parse(String field, String value, Function<String, Optional<T>> parser, String known) {
    return parser.apply(value).orElseThrow(() -> GatewayErrors.invalid(field, "must be one of " + known + ", got '" + value + "'"));
  }

  private static String fingerprint(String fp) {
    if (!FINGERPRINT.matcher(fp).matches()) {
      throw GatewayErrors.invalid("pubkey_fp", "must be a SHA-256 fingerprint: 64 hexadecimal characters");
    }
    return fp.toLowerCase();
  }

  /** SHA-256 over the key blob of an OpenSSH public key line ({@code type base64 [comment]}), in hex. */
  static String fingerprintOfKey(String pubkey) {
    String[] parts = pubkey.trim().split("\\s+");
    if (parts.length < 2) {
      throw GatewayErrors.invalid("pubkey", "must be an OpenSSH public key such as 'ssh-ed25519 AAAA… comment'");
    }
    try {
      byte[] blob = Base64.getDecoder().decode(parts[1]);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(blob));
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.invalid("pubkey", "has a key blob that is not base64");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
