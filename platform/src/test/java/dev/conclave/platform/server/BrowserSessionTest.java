package dev.conclave.platform.server;

import dev.conclave.platform.testing.RawHttp;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a page of another origin can do with the console's login and its cookie, over the wire:
 * nothing. A login is JSON from the node's own origin (a {@code text/plain} form from another site
 * used to log the victim in as the attacker: login CSRF), a logout too, and the cookie never
 * authenticates a request whose {@code Origin} is another one. Programs, which send no Origin, are
 * unaffected.
 */
class BrowserSessionTest {

  private static final String EVIL = "http://evil.example";

  private static TestNode node;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String own() {
    return "http://127.0.0.1:" + node.httpPort();
  }

  @Test
  void aTextPlainLoginFromAnotherSiteSetsNoCookie() {
    // what an HTML form with enctype="text/plain" and one field named {"token":"…","x":"  sends
    byte[] form = ("{\"token\":\"" + node.adminToken() + "\",\"x\":\"=y\"}").getBytes(StandardCharsets.UTF_8);
    RawHttp.Response r = send("POST", "/auth/session", headers("content-type", "text/plain", "origin", EVIL), form);
    assertThat(r.status()).as(r.body()).isEqualTo(403);
    assertThat(code(r)).isEqualTo("origin_not_allowed");
    assertThat(r.header("set-cookie")).isNull();
  }

  @Test
  void aLoginIsJsonEvenWithoutAnOrigin() {
    byte[] body = new JsonObject().put("token", node.adminToken()).toBuffer().getBytes();
    for (String type : new String[] {"text/plain", "text/plain;charset=UTF-8", "application/x-json", "application/jsonx"}) {
      RawHttp.Response r = send("POST", "/auth/session", headers("content-type", type), body);
      assertThat(r.status()).as(type + ": " + r.body()).isEqualTo(415);
      assertThat(code(r)).isEqualTo("media_type_unsupported");
      assertThat(r.header("set-cookie")).isNull();
    }
    RawHttp.Response none = send("POST", "/auth/session", headers(), body);
    assertThat(none.status()).as(none.body()).isEqualTo(415);
  }

  @Test
  void aJsonLoginFromAnotherOriginIsRefused() {
    byte[] body = new JsonObject().put("token", node.adminToken()).toBuffer().getBytes();
    for (String origin : new String[] {EVIL, "null", "http://127.0.0.1:1", "http://localhost:" + node.httpPort(),
      "https://127.0.0.1:" + node.httpPort() + ".evil.example"}) {
      RawHttp.Response r = send("POST", "/auth/session", headers("content-type", "application/json", "origin", origin), body);
      assertThat(r.status()).as(origin + ": " + r.body()).isEqualTo(403);
      assertThat(r.header("set-cookie")).isNull();
    }
  }

  @Test
  void theConsolesOwnLoginAndAProgramsLoginWork() {
    byte[] body = new JsonObject().put("token", node.adminToken()).toBuffer().getBytes();
    RawHttp.Response page = send("POST", "/auth/session", headers("content-type", "application/json", "origin", own()), body);
    assertThat(page.status()).as(page.body()).isEqualTo(200);
    assertThat(page.header("set-cookie")).startsWith(SessionCookie.NAME + "=");
    RawHttp.Response program = send("POST", "/auth/session", headers("content-type", "application/json; charset=utf-8"), body);
    assertThat(program.status()).as(program.body()).isEqualTo(200);
  }

  @Test
  void aLogoutFromAnotherOriginIsRefused() {
    String cookie = login();
    RawHttp.Response foreign = send("DELETE", "/auth/session", headers("cookie", cookie, "origin", EVIL), null);
    assertThat(foreign.status()).as(foreign.body()).isEqualTo(403);
    assertThat(code(foreign)).isEqualTo("origin_not_allowed");
    assertThat(foreign.header("set-cookie")).isNull();
    RawHttp.Response own = send("DELETE", "/auth/session", headers("cookie", cookie, "origin", own(), SessionCookie.CSRF_HEADER, "1"), null);
    assertThat(own.status()).as(own.body()).isEqualTo(204);
    assertThat(own.header("set-cookie")).contains("Max-Age=0");
  }

  @Test
  void theCookieAuthenticatesNoRequestFromAnotherOrigin() {
    String cookie = login();
    RawHttp.Response foreign = send("GET", "/api/v1/whoami", headers("cookie", cookie, "origin", EVIL), null);
    assertThat(foreign.status()).as(foreign.body()).isEqualTo(403);
    assertThat(code(foreign)).isEqualTo("origin_not_allowed");
    assertThat(send("GET", "/api/v1/whoami", headers("cookie", cookie, "origin", "http://127.0.0.1:1"), null).status()).isEqualTo(403);
    assertThat(send("GET", "/auth/session", headers("cookie", cookie, "origin", EVIL), null).status()).isEqualTo(403);
    // the node's own page, and a request without an Origin (a navigation, a program)
    assertThat(send("GET", "/api/v1/whoami", headers("cookie", cookie, "origin", own()), null).status()).isEqualTo(200);
    assertThat(send("GET", "/api/v1/whoami", headers("cookie", cookie), null).status()).isEqualTo(200);
    // a bearer token is no browser's ambient credential: its Origin is not judged
    assertThat(send("GET", "/api/v1/whoami", headers("authorization", "Bearer " + node.adminToken(), "origin", EVIL), null).status())
      .isEqualTo(200);
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static String login() {
    RawHttp.Response r = send("POST", "/auth/session", headers("content-type", "application/json"),
      new JsonObject().put("token", node.adminToken()).toBuffer().getBytes());
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    String set = r.header("set-cookie");
    return set.substring(0, set.indexOf(';'));
  }

  private static Map<String, String> headers(String... pairs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put(pairs[i], pairs[i + 1]);
    }
    return out;
  }

  private static RawHttp.Response send(String method, String path, Map<String, String> headers, byte[] body) {
    return RawHttp.send(node.httpPort(), method, path, headers, body, 15_000);
  }

  private static String code(RawHttp.Response r) {
    try {
      return new JsonObject(r.body()).getString("code");
    } catch (RuntimeException e) {
      return "(not a problem: " + r.body() + ")";
    }
  }
}
