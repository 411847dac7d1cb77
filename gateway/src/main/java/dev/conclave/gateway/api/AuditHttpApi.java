package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.EventCursors;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.audit.AuditQuery;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.MultiMap;

import java.util.Optional;
import java.util.Set;

/**
 * The audit log over HTTP for admins: {@code GET /api/v1/audit?actor=&action=&target=&outcome=&since=&until=&limit=&cursor=},
 * newest first; {@code nextCursor} continues a page.
 */
public final class AuditHttpApi {

  static final String PATH = "/api/v1/audit";
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 500;
  static final Set<String> OUTCOMES = Set.of("ok", "denied", "failed");

  private final AuditQuery query;

  public AuditHttpApi(AuditQuery query) {
    this.query = query;
  }

  public void mount(HttpRoutes routes) {
    routes.get(PATH, Audience.ADMINS, Resource.NONE, (caller, ctx) -> query.page(filter(ctx.queryParams())));
  }

  static AuditQuery.Filter filter(MultiMap q) {
    Optional<String> outcome = Optional.ofNullable(q.get("outcome"));
    if (outcome.isPresent() && !OUTCOMES.contains(outcome.get())) {
      throw GatewayErrors.invalid("outcome", "must be ok, denied or failed, got '" + outcome.get() + "'");
    }
    int limit = DEFAULT_LIMIT;
    if (q.get("limit") != null) {
      try {
        limit = Integer.parseInt(q.get("limit"));
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > MAX_LIMIT) {
        throw GatewayErrors.invalid("limit", "must be 1 to " + MAX_LIMIT + ", got '" + q.get("limit") + "'");
      }
    }
    Optional<Long> before = Optional.empty();
    if (q.get("cursor") != null) {
      try {
        before = Optional.of(Long.parseLong(q.get("cursor")));
      } catch (NumberFormatException e) {
        throw GatewayErrors.invalid("cursor", "must be a nextCursor of an earlier page");
      }
    }
    return new AuditQuery.Filter(
      Optional.ofNullable(q.get("actor")).map(a -> GatewayHttpApi.uuid(a, "actor")),
      Optional.ofNullable(q.get("action")),
      Optional.ofNullable(q.get("target")),
      outcome,
      Optional.ofNullable(q.get("since")).map(s -> EventCursors.parseTime("since", s)),
      Optional.ofNullable(q.get("until")).map(s -> EventCursors.parseTime("until", s)),
      before,
      limit);
  }
}
