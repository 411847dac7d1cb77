package dev.conclave.platform.server;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The web console's static files, served from the classpath ({@code conclave-console/} in the
 * console module's jar) at {@code /}; {@code /dashboard} leads there. Nothing is fetched from
 * elsewhere, so the console works offline. A node built without the console answers 404.
 */
public final class ConsoleAssets {

  public static final String CLASSPATH_ROOT = "conclave-console";

  private ConsoleAssets() {
  }

  public static void mount(Router router) {
    router.get("/dashboard").handler(ctx -> ctx.response().setStatusCode(302).putHeader("location", "/").end());
    router.get("/*").handler(ctx -> {
      ctx.response()
        .putHeader("x-content-type-options", "nosniff")
        .putHeader("x-frame-options", "DENY")
        .putHeader("referrer-policy", "no-referrer");
      ctx.next();
    });
    router.get("/*").handler(StaticHandler.create(CLASSPATH_ROOT).setIndexPage("index.html").setCachingEnabled(false)
      .setDirectoryListing(false).setIncludeHidden(false));
  }
}
