package dev.conclave.node;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.platform.server.ConsoleAssets;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's pages come with a Content-Security-Policy that lets the page run exactly the
 * scripts it ships (its inline import map by hash, the rest from this origin) and nothing else.
 * (That the console still works under it is ConsoleBrowserIT's, in a real Chromium.)
 */
class ConsoleHeadersTest {

  private static TestNode node;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new GatewayRole()).start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void theConsolePageAllowsItsOwnInlineScriptByHashAndNothingInline() throws Exception {
    HttpResponse<String> page = get("/");
    assertThat(page.statusCode()).isEqualTo(200);
    String policy = page.headers().firstValue(ConsoleAssets.CSP_HEADER).orElseThrow();
    List<String> inline = ConsoleAssets.inlineScripts(page.body());
    assertThat(inline).as("the page's inline scripts (its import map)").hasSize(1);
    assertThat(policy).isEqualTo(ConsoleAssets.policy(inline));
    assertThat(policy).contains("script-src 'self' 'sha256-").contains("frame-ancestors 'none'").contains("object-src 'none'")
      .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval").doesNotContain("*");
  }

  @Test
  void everyConsoleFileCarriesThePolicy() throws Exception {
    String policy = get("/").headers().firstValue(ConsoleAssets.CSP_HEADER).orElseThrow();
    for (String path : List.of("/app.js", "/style.css", "/favicon.svg", "/vendor/preact/preact.mjs")) {
      HttpResponse<String> file = get(path);
      assertThat(file.statusCode()).as(path).isEqualTo(200);
      assertThat(file.headers().firstValue(ConsoleAssets.CSP_HEADER)).as(path).contains(policy);
      assertThat(file.headers().firstValue("x-content-type-options")).as(path).contains("nosniff");
    }
  }

  @Test
  void headIsAnsweredWithThePolicyAndNoBody() throws Exception {
    for (String path : List.of("/", "/app.js")) {
      HttpResponse<String> head = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> get = get(path);
      assertThat(head.statusCode()).as(path).isEqualTo(200);
      assertThat(head.body()).as(path).isEmpty();
      assertThat(head.headers().firstValue(ConsoleAssets.CSP_HEADER)).as(path).isEqualTo(get.headers().firstValue(ConsoleAssets.CSP_HEADER));
      // what a GET would carry, as HTTP asks of HEAD
      assertThat(head.headers().firstValue("content-type")).as(path).isPresent().isEqualTo(get.headers().firstValue("content-type"));
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path)).build(),
      HttpResponse.BodyHandlers.ofString());
  }
}
