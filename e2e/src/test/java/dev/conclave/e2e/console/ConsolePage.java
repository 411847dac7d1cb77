package dev.conclave.e2e.console;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The console as a user sees it in one {@link Browser}: its screens, the elements the tests rely on
 * (ids and {@code data-testid}s, the page's test contract) and the steps users take.
 */
final class ConsolePage implements AutoCloseable {

  static final Duration LIVE = Duration.ofSeconds(15);
  static final Duration SHORT = Duration.ofSeconds(10);
  static final String EVENT = "[data-testid=event]";
  static final String DONE = "[data-testid=event][data-kind=done]";
  static final String LOGIN_SCREEN = "#login-screen";
  static final String CONN_STATE = "#conn-state";

  private final Browser browser;
  private final String url;

  /** Opens a browser with a fresh profile (no cookie) on the console at {@code url}. */
  ConsolePage(String name, String url) {
    this(name, url, List.of());
  }

  /** The same, Chromium started with {@code browserArguments} besides its usual ones. */
  ConsolePage(String name, String url, List<String> browserArguments) {
    this.browser = new Browser(name, browserArguments);
    this.url = url;
    browser.open(url);
  }

  Browser browser() {
    return browser;
  }

  String url() {
    return url;
  }

  void awaitLoginScreen() {
    browser.await(LOGIN_SCREEN, LIVE, "the login screen");
  }

  /** Types the token into the login screen and waits until the app is live. */
  void logIn(String token) {
    awaitLoginScreen();
    browser.type("#login-token", token);
    browser.click("#login-submit", SHORT, "the login button");
    awaitConnState("live", LIVE);
  }

  String connState() {
    return browser.text(CONN_STATE);
  }

  void awaitConnState(String state, Duration limit) {
    browser.awaitTrue(limit, CONN_STATE + " " + state, () -> state.equals(connState()));
  }

  /** Follows a link of the page: {@code #/agents}, {@code #/swarm}... */
  void go(String hash) {
    browser.go(hash);
  }

  /** Opens the agent's conversation and waits until it is loaded, live and ready to send. */
  void openConversation(String agentId) {
    go("#/conversation/" + agentId);
    browser.await("#conversation[data-agent-id=\"" + agentId + "\"]", SHORT, "the agent's conversation");
    browser.awaitTrue(SHORT, "the conversation loaded", () -> !browser.present(".log .muted.center") || browser.present(EVENT));
    browser.awaitTrue(SHORT, "the message field enabled",
      () -> Boolean.FALSE.equals(browser.js("const e = document.querySelector('#message-input'); return !e || e.disabled")));
    awaitConnState("live", LIVE);
  }

  /** Types a message into the conversation's composer and sends it. */
  void sendMessage(String content) {
    browser.type("#message-input", content);
    browser.click("#message-send", SHORT, "the send button");
  }

  /** The text of the agent's reply whose chunks carry this label, or null when the page shows none. */
  String replyText(String label) {
    return (String) browser.js("return [...document.querySelectorAll('[data-testid=assistant-text]')].map(e => e.textContent)"
      + ".find(t => t.includes(arguments[0])) ?? null", label + "-chunk-");
  }

  /** The states the page shows for a tool, in document order: one per tool_state line naming it. */
  @SuppressWarnings("unchecked")
  List<String> toolStateLines(String toolId) {
    return (List<String>) browser.js("return [...document.querySelectorAll('[data-kind=tool_state]')]"
      + ".filter(e => e.textContent.includes(arguments[0])).map(e => (e.querySelector('.pill') || e).textContent.trim())", toolId);
  }

  /** How many preformatted blocks (tool input and output) show this text. */
  long codeBlocksShowing(String text) {
    return browser.texts("pre.code").stream().filter(t -> t.contains(text)).count();
  }

  /**
   * The swarm board's columns that are not fully in view: outside the board's box, or past the
   * visible width of the page's scrolling area; and whether the board itself must scroll sideways.
   */
  @SuppressWarnings("unchecked")
  List<String> swarmColumnsOutOfView() {
    return (List<String>) browser.js("const main = document.querySelector('.main'), board = document.querySelector('.board');"
      + "const right = Math.min(board.getBoundingClientRect().right, main.getBoundingClientRect().left + main.clientWidth) + 0.5;"
      + "const left = Math.max(0, board.getBoundingClientRect().left) - 0.5;"
      + "const out = [...document.querySelectorAll('[data-testid=swarm-column]')].filter(c => {"
      + "  const r = c.getBoundingClientRect(); return r.left < left || r.right > right; })"
      + "  .map(c => c.dataset.status + ' ends at ' + Math.round(c.getBoundingClientRect().right) + ' px');"
      + "if (board.scrollWidth > board.clientWidth) out.push('the board scrolls: ' + board.scrollWidth + ' px in ' + board.clientWidth);"
      + "return out;");
  }

  /** The {@code data-seq} of every conversation event on the page, in document order. */
  List<Long> seqs() {
    List<Long> out = new ArrayList<>();
    for (String s : browser.attributes(EVENT, "data-seq")) {
      out.add(Long.parseLong(s));
    }
    return out;
  }

  static String agentRow(String agentId) {
    return "[data-testid=agent-row][data-agent-id=\"" + agentId + "\"][data-connected=true]";
  }

  static String approval(String toolId) {
    return "[data-testid=approval][data-tool-id=\"" + toolId + "\"]";
  }

  static String column(String status) {
    return "[data-testid=swarm-column][data-status=" + status + "]";
  }

  static String card(String status, String taskId) {
    return column(status) + " [data-testid=task-card][data-task-id=\"" + taskId + "\"]";
  }

  static String principalRow(String id) {
    return "[data-testid=principal-row][data-principal-id=\"" + id + "\"]";
  }

  /**
   * Opens the bridge from this page's origin with the page's own client (window.EventBus), as any
   * script of the page could, and subscribes to the addresses; {@link #probe()} tells what came.
   */
  void startBridgeProbe(List<String> addresses) {
    browser.js("""
      const addresses = arguments[0];
      const probe = window.__probe = { opened: false, messages: [], errors: [] };
      const eb = new window.EventBus('/eventbus');
      eb.onerror = (e) => probe.errors.push(JSON.stringify(e));
      eb.onopen = () => {
        probe.opened = true;
        for (const a of addresses) {
          eb.registerHandler(a, (err, msg) => {
            if (err) probe.errors.push(a + ': ' + JSON.stringify(err));
            else probe.messages.push(a + ': ' + JSON.stringify(msg.body));
          });
        }
      };
      """, addresses);
    browser.awaitTrue(SHORT, "the probe's socket open", () -> Boolean.TRUE.equals(browser.js("return window.__probe.opened")));
  }

  /** {"opened": bool, "messages": [..], "errors": [..]} of the bridge probe. */
  @SuppressWarnings("unchecked")
  Map<String, Object> probe() {
    return (Map<String, Object>) browser.js("return window.__probe");
  }

  /**
   * Saves a PNG of the window as {@code <name>.png} in {@code target/console-screenshots/} and, when
   * {@code -Dconsole.screenshots.dir} is set, there too (how the documentation's are regenerated).
   */
  void screenshot(String name) {
    List<Path> dirs = new ArrayList<>(List.of(FailureReport.targetDir().resolve("console-screenshots")));
    String extra = System.getProperty("console.screenshots.dir", "");
    if (!extra.isBlank()) {
      dirs.add(Path.of(extra));
    }
    browser.restMouse();
    browser.screenshot(name, dirs);
  }

  @Override
  public void close() {
    browser.close();
  }
}
