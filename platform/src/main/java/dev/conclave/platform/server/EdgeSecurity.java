package dev.conclave.platform.server;

import dev.conclave.platform.access.RouteTable;

/**
 * What the edge shares with every service it serves: the hand-over of verified callers from the
 * gRPC gate, and the table of declared routes and their audiences.
 */
public record EdgeSecurity(CallerHandoff callers, RouteTable routes) {

  public static EdgeSecurity create() {
    return new EdgeSecurity(new CallerHandoff(), new RouteTable());
  }
}
