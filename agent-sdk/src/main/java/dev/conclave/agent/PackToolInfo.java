package dev.conclave.agent;

import java.time.Duration;
import java.util.List;

/**
 * A pack tool the gateway offers this agent (from {@code Welcome.available_tools}).
 *
 * @param timeout how long the gateway lets the tool run; zero when the gateway did not say
 */
public record PackToolInfo(String name, String description, String inputSchemaJson,
                           List<String> requiredCapabilities, Duration timeout) {

  public PackToolInfo {
    requiredCapabilities = List.copyOf(requiredCapabilities);
  }
}
