package dev.conclave.platform.access;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every authenticated route of a node, with who may call it and what it acts on. gRPC methods are
 * recorded as they are bound ({@code GrpcEndpoint}), HTTP routes as they are mounted
 * ({@code HttpRoutes}); a route that was not declared is not served. Tests enumerate it, and
 * docs/security.md is its rendering.
 */
public final class RouteTable {

  /** One declared route: {@code grpc} methods use their full name as path and an empty method. */
  public record Route(String surface, String method, String path, Audience audience, Resource resource) {

    public String key() {
      return surface + " " + method + " " + path;
    }
  }

  private final Map<String, Route> routes = new ConcurrentHashMap<>();

  public void grpc(String fullMethodName, Audience audience, Resource resource) {
    add(new Route("grpc", "", fullMethodName, audience, resource));
  }

  public void http(String method, String path, Audience audience, Resource resource) {
    add(new Route("http", method, path, audience, resource));
  }

  private void add(Route route) {
    Route before = routes.putIfAbsent(route.key(), route);
    if (before != null && !before.equals(route)) {
      throw new IllegalStateException("route declared twice with different rules: " + before + " and " + route);
    }
  }

  public List<Route> all() {
    List<Route> out = new ArrayList<>(routes.values());
    out.sort(Comparator.comparing(Route::key));
    return out;
  }
}
