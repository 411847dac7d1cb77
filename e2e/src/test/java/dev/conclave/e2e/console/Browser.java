package dev.conclave.e2e.console;

import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One headless Chromium with a profile of its own (so its own cookies), driven through
 * chromedriver. Both binaries are given by path: Selenium Manager never downloads anything. Every
 * wait is bounded and names what it waited for.
 */
final class Browser implements AutoCloseable {

  static final Duration POLL = Duration.ofMillis(50);
  /** Selenium warns on every start that it has no CDP classes for this Chromium; nothing here uses CDP. */
  private static final Logger DEVTOOLS_LOG = Logger.getLogger("org.openqa.selenium.devtools");

  static {
    DEVTOOLS_LOG.setLevel(Level.SEVERE);
  }

  private final String name;
  private final Path profile;
  private final ChromeDriverService service;
  private final ChromeDriver driver;

  Browser(String name) {
    this(name, List.of());
  }

  /** With extra Chromium switches (for example the SPKI of a throwaway certificate to trust). */
  Browser(String name, List<String> extraArguments) {
    this.name = name;
    try {
      this.profile = Files.createTempDirectory("conclave-console-" + name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    service = new ChromeDriverService.Builder()
      .usingDriverExecutable(executable("console.chromedriver", "/usr/bin/chromedriver"))
      .usingPort(FreePorts.next())
      .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(executable("console.chromium", "/usr/bin/chromium"));
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
      "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
      "--window-size=1400,1043", "--user-data-dir=" + profile,
      // chromedriver would let Chromium pick its DevTools port among the ephemeral ones
      "--remote-debugging-port=" + FreePorts.next());
    options.addArguments(extraArguments);
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    try {
      driver = new ChromeDriver(service, options);
    } catch (WebDriverException e) {
      service.stop();
      TestDatabase.deleteTree(profile);
      throw e;
    }
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20)).scriptTimeout(Duration.ofSeconds(15));
  }

  private static File executable(String property, String fallback) {
    File f = new File(System.getProperty(property, fallback));
    if (!f.canExecute()) {
      throw new IllegalStateException(f + " is missing: install Debian's chromium and chromium-driver (.ci/run does), or set -D" + property);
    }
    return f;
  }

  String name() {
    return name;
  }

  void open(String url) {
    driver.get(url);
  }

  /** Changes the location's hash, as following a link of the page does. */
  void go(String hash) {
    js("location.hash = arguments[0]", hash);
  }

  Object js(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  Object asyncJs(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeAsyncScript(script, args);
  }

  /** The number of elements matching a CSS selector now. */
  int count(String css) {
    return ((Number) js("return document.querySelectorAll(arguments[0]).length", css)).intValue();
  }

  /** The text content of the first element matching, or null when there is none. */
  String text(String css) {
    return (String) js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", css);
  }

  /** The text content of every element matching, in document order. */
  @SuppressWarnings("unchecked")
  List<String> texts(String css) {
    return (List<String>) js("return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", css);
  }

  /** An attribute of every element matching, in document order. */
  @SuppressWarnings("unchecked")
  List<String> attributes(String css, String attribute) {
    return (List<String>) js("return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]))", css, attribute);
  }

  boolean present(String css) {
    return count(css) > 0;
  }

  /** Waits until an element matching is present and returns it. */
  WebElement await(String css, Duration limit, String what) {
    awaitTrue(limit, what + " (" + css + ")", () -> present(css));
    return driver.findElement(By.cssSelector(css));
  }

  /** Waits until the condition holds; fails with what was awaited and the page's alerts. */
  void awaitTrue(Duration limit, String what, Supplier<Boolean> condition) {
    long deadline = System.nanoTime() + limit.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (Boolean.TRUE.equals(condition.get())) {
          return;
        }
        last = null;
      } catch (StaleElementReferenceException e) {
        last = e;
      }
      sleep(POLL.toMillis());
    }
    throw new AssertionError("[" + name + "] waited " + limit.toMillis() + " ms for: " + what + "; location " + location()
      + "; #conn-state " + text("#conn-state") + "; alerts on the page: " + alerts(), last);
  }

  /** Clicks the first element matching once it is there (Preact may re-render it meanwhile). */
  void click(String css, Duration limit, String what) {
    awaitTrue(limit, "clickable " + what + " (" + css + ")", () -> {
      WebElement e = driver.findElement(By.cssSelector(css));
      if (!e.isDisplayed() || !e.isEnabled()) {
        return false;
      }
      e.click();
      return true;
    });
  }

  void type(String css, String text) {
    WebElement e = await(css, Duration.ofSeconds(5), "a field to type in");
    e.clear();
    e.sendKeys(text);
  }

  /** Text of the page's alerts and error banners: what a failing wait reports. */
  List<String> alerts() {
    try {
      return texts("[role=alert], .banner-error, .form-error").stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    } catch (WebDriverException e) {
      return List.of("(could not read: " + e.getMessage().lines().findFirst().orElse("") + ")");
    }
  }

  String location() {
    try {
      return driver.getCurrentUrl();
    } catch (WebDriverException e) {
      return "?";
    }
  }

  /** Saves a PNG of the window as {@code <name>.png} in each directory given. */
  void screenshot(String file, List<Path> dirs) {
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    try {
      for (Path dir : dirs) {
        Files.createDirectories(dir);
        Files.write(dir.resolve(file + ".png"), png);
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not save screenshot " + file, e);
    }
  }

  /** Moves the pointer to the window's top left corner, so no hover effect shows in a screenshot. */
  void restMouse() {
    new Actions(driver).moveToLocation(0, 0).perform();
  }

  /** The page's console output since the last call (chromedriver hands each entry out once). */
  List<String> consoleLog() {
    List<String> out = new ArrayList<>();
    for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
      out.add(java.time.Instant.ofEpochMilli(e.getTimestamp()) + " " + e.getLevel() + " " + e.getMessage());
    }
    return out;
  }

  /** For a failed test: a screenshot, the console log and the DOM in {@code dir}, best effort. */
  void dump(Path dir, String prefix) {
    String base = prefix + "-" + name;
    try {
      Files.createDirectories(dir);
      screenshot(base, List.of(dir));
    } catch (RuntimeException | IOException e) {
      System.err.println("no screenshot of " + name + ": " + e.getMessage());
    }
    try {
      Files.write(dir.resolve(base + "-console.log"), consoleLog());
      Files.writeString(dir.resolve(base + "-dom.html"), "<!-- " + location() + " -->\n" + driver.getPageSource());
    } catch (RuntimeException | IOException e) {
      System.err.println("no console log or DOM of " + name + ": " + e.getMessage());
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } catch (WebDriverException e) {
      System.err.println("browser " + name + " did not quit cleanly: " + e.getMessage());
    } finally {
      service.stop();
      TestDatabase.deleteTree(profile);
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
