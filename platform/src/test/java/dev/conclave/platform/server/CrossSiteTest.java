package dev.conclave.platform.server;

import io.vertx.core.net.HostAndPort;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When an {@code Origin} is the node's own: exactly the host and port the request was sent to, as
 * browsers write both headers. Same-site is not enough (SameSite=Strict sends the cookie to another
 * port and to sibling names), and anything that is not a plain {@code scheme://host[:port]} is another
 * origin.
 */
class CrossSiteTest {

  private static final HostAndPort NODE = HostAndPort.authority("conclave.example.com", 8080);
  private static final HostAndPort NODE_DEFAULT_PORT = HostAndPort.authority("conclave.example.com", -1);

  @Test
  void theSameHostAndPortIsTheNodesOwn() {
    assertThat(CrossSite.own("http://conclave.example.com:8080", NODE, false)).isTrue();
    assertThat(CrossSite.own("HTTP://Conclave.Example.COM:8080", NODE, false)).isTrue();
    // behind a proxy that ended TLS the node sees plain HTTP: the page's https origin is still its own
    assertThat(CrossSite.own("https://conclave.example.com:8080", NODE, false)).isTrue();
    assertThat(CrossSite.own("https://conclave.example.com", NODE_DEFAULT_PORT, false)).isTrue();
    assertThat(CrossSite.own("http://conclave.example.com", NODE_DEFAULT_PORT, false)).isTrue();
    assertThat(CrossSite.own("https://conclave.example.com:443", NODE_DEFAULT_PORT, false)).isTrue();
    assertThat(CrossSite.own("https://conclave.example.com", HostAndPort.authority("conclave.example.com", 443), true)).isTrue();
    assertThat(CrossSite.own("http://[::1]:8080", HostAndPort.authority("[::1]", 8080), false)).isTrue();
    assertThat(CrossSite.own("http://[::1]:8080", HostAndPort.create("::1", 8080), false)).isTrue();
  }

  @Test
  void sameSiteIsNotTheSameOrigin() {
    assertThat(CrossSite.own("http://conclave.example.com:8081", NODE, false)).as("another port").isFalse();
    assertThat(CrossSite.own("http://conclave.example.com", NODE, false)).as("the default port").isFalse();
    assertThat(CrossSite.own("http://other.example.com:8080", NODE, false)).as("a sibling name").isFalse();
    assertThat(CrossSite.own("http://example.com:8080", NODE, false)).as("the parent domain").isFalse();
    assertThat(CrossSite.own("http://conclave.example.com:8080.evil.example", NODE, false)).isFalse();
    assertThat(CrossSite.own("http://conclave.example.com.evil.example:8080", NODE, false)).isFalse();
    assertThat(CrossSite.own("https://conclave.example.com:8080", HostAndPort.authority("conclave.example.com", 8080), true)).isTrue();
    assertThat(CrossSite.own("http://conclave.example.com:8080", HostAndPort.authority("conclave.example.com", 8080), true))
      .as("plain http to a TLS port").isFalse();
  }

  @Test
  void whatIsNoPlainOriginIsForeign() {
    for (String origin : new String[] {"null", "", " ", "garbage", "file://", "file:///etc/passwd", "chrome-extension://abc",
      "ws://conclave.example.com:8080", "http://conclave.example.com:8080/", "http://conclave.example.com:8080/x",
      "http://user@conclave.example.com:8080", "http://conclave.example.com:8080?x", "http://conclave.example.com:8080#x",
      "http://conclave.example.com:80800", "http:conclave.example.com:8080", "//conclave.example.com:8080",
      "http://conclave.example.com:8080\u0000", "http://conclave.example.com :8080"}) {
      assertThat(CrossSite.own(origin, NODE, false)).as(origin).isFalse();
    }
    assertThat(CrossSite.own(null, NODE, false)).isFalse();
    assertThat(CrossSite.own("http://conclave.example.com:8080", null, false)).isFalse();
  }
}
