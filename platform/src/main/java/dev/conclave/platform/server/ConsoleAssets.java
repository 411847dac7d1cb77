package dev.conclave.platform.server;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.MimeMapping;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The web console's static files, served from the classpath ({@code conclave-console/} in the
 * console module's jar) at {@code /}; {@code /dashboard} leads there. Nothing is fetched from
 * elsewhere, so the console works offline. A node built without the console answers 404.
 *
 * <p>Every response carries a Content-Security-Policy that allows this origin only: no inline
 * script but the ones {@code index.html} ships (allowed by their SHA-256, computed here from the
 * file itself, so the policy cannot go stale), no eval, no plugins, no framing, no other host to
 * connect to. A script injected into the page by some future bug has nowhere to run and nowhere to
 * send what it reads.
 */
public final class ConsoleAssets {

  public static final String CLASSPATH_ROOT = "conclave-console";
  public static final String CSP_HEADER = "content-security-policy";

  private static final Pattern INLINE_SCRIPT = Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>(.*?)</script>", Pattern.DOTALL);

  private ConsoleAssets() {
  }

  public static void mount(Router router) {
    String policy = policy(inlineScripts(indexPage()));
    // HEAD is answered too, with the status and the headers (curl -I, link checkers, load balancers' probes)
    router.route("/dashboard").method(HttpMethod.GET).method(HttpMethod.HEAD)
      .handler(ctx -> ctx.response().setStatusCode(302).putHeader("location", "/").end());
    router.route("/*").method(HttpMethod.GET).method(HttpMethod.HEAD)
      .handler(ctx -> {
        ctx.response()
          .putHeader(CSP_HEADER, policy)
          .putHeader("x-content-type-options", "nosniff")
          .putHeader("x-frame-options", "DENY")
          .putHeader("referrer-policy", "no-referrer");
        if (ctx.request().method() == HttpMethod.HEAD) {
          // StaticHandler names the type only when it sends the file; HEAD carries what GET would
          String path = ctx.normalizedPath();
          String type = MimeMapping.mimeTypeForFilename(path.endsWith("/") ? path + "index.html" : path);
          if (type != null) {
            ctx.response().putHeader("content-type", type.startsWith("text/") ? type + ";charset=UTF-8" : type);
          }
        }
        ctx.next();
      })
      .handler(StaticHandler.create(CLASSPATH_ROOT).setIndexPage("index.html").setCachingEnabled(false)
        .setDirectoryListing(false).setIncludeHidden(false));
  }

  /** The policy for a page whose inline scripts are {@code inlineScripts} (their text between the tags). */
  public static String policy(List<String> inlineScripts) {
    StringBuilder scripts = new StringBuilder("'self'");
    for (String script : inlineScripts) {
      scripts.append(" 'sha256-").append(sha256(script)).append('\'');
    }
    // 'self' covers the event-bus bridge's WebSocket and SockJS requests on the same origin;
    // Preact sets styles through the CSSOM, which style-src does not govern
    return String.join("; ",
      "default-src 'self'",
      "script-src " + scripts,
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'");
  }

  /** The text of each inline {@code <script>} of {@code html}, the exact bytes a browser hashes. */
  public static List<String> inlineScripts(String html) {
    List<String> out = new ArrayList<>();
    Matcher m = INLINE_SCRIPT.matcher(html);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String indexPage() {
    try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream(CLASSPATH_ROOT + "/index.html")) {
      // a node built without the console serves no page, and so no inline script
      return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(String text) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
