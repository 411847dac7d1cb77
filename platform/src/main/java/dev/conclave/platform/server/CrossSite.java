package dev.conclave.platform.server;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The one rule for what a browser may send on a user's behalf: requests the session cookie
 * authenticates, and WebSocket upgrades. A browser adds the cookie to any request to the node, also
 * from another page (SameSite=Strict stops other sites, not other ports or sibling names of the same
 * site), so the cookie counts only for requests that prove they come from the node's own page:
 *
 * <ul>
 *   <li>a request whose {@code Origin} is another origin never uses the cookie ({@code origin_not_allowed});</li>
 *   <li>a WebSocket upgrade uses it only with the node's own {@code Origin} ({@code origin_required}):
 *       browsers always send Origin on an upgrade and pages cannot forge it, while a page cannot add
 *       any header of its own to an upgrade;</li>
 *   <li>a request that may change something (any method but GET and HEAD, and every upgrade, since a
 *       socket carries actions) needs an {@code api} cookie ({@code session_read_only}), and, unless it
 *       is an upgrade, the header {@link SessionCookie#CSRF_HEADER} ({@code csrf_header_required}),
 *       which another origin cannot add without a CORS preflight (never granted).</li>
 * </ul>
 *
 * Bearer tokens and signed requests are no browser's ambient credentials: their Origin is not
 * judged. Every piece of the node that accepts a browser's request asks here: {@link HttpAuthHandler}
 * ({@code /api/}, the session socket included), {@link SessionEndpoint} (login, logout), the
 * event-bus bridge and the MCP endpoint. Model: docs/dashboard.md.
 */
public final class CrossSite {

  /** What a request's {@code Origin} header says about the page that sent it. */
  public enum Origin {
    /** No Origin: not a browser, or a same-origin GET or HEAD (browsers omit it there). */
    ABSENT,
    /** The node's own origin: the scheme, host and port the request was sent to. */
    OWN,
    /** Anything else: another origin, an opaque one ({@code null}), several, or a malformed value. */
    FOREIGN
  }

  private CrossSite() {
  }

  /** Judges the request's {@code Origin} against the host it was sent to ({@code Host}, or HTTP/2's {@code :authority}). */
  public static Origin origin(HttpServerRequest request) {
    List<String> origins = request.headers().getAll("origin");
    if (origins.isEmpty()) {
      return Origin.ABSENT;
    }
    if (origins.size() > 1) {
      return Origin.FOREIGN;
    }
    return own(origins.get(0), request.authority(), request.isSSL()) ? Origin.OWN : Origin.FOREIGN;
  }

  /**
   * True when {@code origin} is the origin of a request sent to {@code authority}: the same host (case
   * aside) and port, a port left out meaning the scheme's default (browsers leave default ports out
   * of both headers). The scheme must be {@code https} on a TLS connection; on a plain one either is
   * taken, since a proxy in front may have ended TLS and the node cannot tell.
   */
  static boolean own(String origin, HostAndPort authority, boolean tls) {
    if (origin == null || authority == null || authority.host() == null || authority.host().isEmpty()) {
      return false;
    }
    URI uri;
    try {
      uri = new URI(origin);
    } catch (URISyntaxException e) {
      return false;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    int defaultPort = switch (scheme) {
      case "http" -> 80;
      case "https" -> 443;
      default -> -1;
    };
    // an origin is scheme://host[:port] and nothing else (RFC 6454): no user, path, query or fragment
    if (defaultPort < 0 || (tls && !scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null
      || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return false;
    }
    int originPort = uri.getPort() < 0 ? defaultPort : uri.getPort();
    int hostPort = authority.port() < 0 ? defaultPort : authority.port();
    return bare(uri.getHost()).equalsIgnoreCase(bare(authority.host())) && originPort == hostPort;
  }

  private static String bare(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** A WebSocket upgrade, as Vert.x would make it (HTTP/1.1 GET with {@code connection: upgrade}, {@code upgrade: websocket}). */
  public static boolean upgrade(HttpServerRequest request) {
    return request.canUpgradeToWebSocket();
  }

  /**
   * Where a WebSocket may be opened at all: under {@code /api/}, where {@link HttpAuthHandler} applies
   * this rule to every upgrade, and at the event-bus bridge, which applies it itself. A socket mounted
   * anywhere else would escape the rule, so {@link #socketsOnlyWhereRuled} refuses its upgrade.
   */
  public static final List<String> SOCKET_PATHS = List.of("/api/", dev.conclave.platform.bridge.EventBusBridge.PATH + "/");

  /** A router-wide handler: refuses (404 {@code websocket_not_served}) an upgrade outside {@link #SOCKET_PATHS}. */
  static void socketsOnlyWhereRuled(io.vertx.ext.web.RoutingContext ctx) {
    String path = ctx.request().path();
    if (upgrade(ctx.request()) && SOCKET_PATHS.stream().noneMatch(path::startsWith)) {
      Problems.send(ctx.response(), ConclaveException.notFound("websocket_not_served", "no WebSocket is served at "
        + dev.conclave.platform.validation.TextRules.echo(path)));
      return;
    }
    ctx.next();
  }

  /** True when the request may change something: any method but GET and HEAD, and every WebSocket upgrade. */
  public static boolean changes(HttpServerRequest request) {
    return !(request.method() == HttpMethod.GET || request.method() == HttpMethod.HEAD) || upgrade(request);
  }

  /**
   * Why the session cookie may not authenticate this request at all, if it may not: another Origin,
   * or a socket ({@code socket}: a WebSocket upgrade, or a request opening a bridge socket) without
   * the node's own.
   */
  public static Optional<ConclaveException> cookieRefused(HttpServerRequest request, boolean socket) {
    Origin origin = origin(request);
    if (origin == Origin.FOREIGN) {
      return Optional.of(AuthErrors.originNotAllowed(request.getHeader("origin")));
    }
    if (socket && origin != Origin.OWN) {
      return Optional.of(AuthErrors.originRequired());
    }
    return Optional.empty();
  }

  /** The whole rule for a request the session cookie authenticated as {@code caller}; throws the refusal. */
  public static void admitSession(HttpServerRequest request, Caller caller) {
    boolean upgrade = upgrade(request);
    Optional<ConclaveException> refused = cookieRefused(request, upgrade);
    if (refused.isPresent()) {
      throw refused.get();
    }
    if (changes(request)) {
      if (caller.purpose() != TokenPurpose.API) {
        throw AuthErrors.readOnlySession();
      }
      if (!upgrade && !"1".equals(request.getHeader(SessionCookie.CSRF_HEADER))) {
        throw AuthErrors.csrfHeaderRequired();
      }
    }
  }
}
