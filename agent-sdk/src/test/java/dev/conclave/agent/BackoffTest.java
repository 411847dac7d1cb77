package dev.conclave.agent;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

  private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2), 2.0, 0.5);

  @Test
  void growsByTheMultiplierUntilTheCap() {
    Backoff noJitter = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2), 3.0, 0.0);
    assertThat(noJitter.delay(0, 0.9)).isEqualTo(Duration.ofMillis(100));
    assertThat(noJitter.delay(1, 0.9)).isEqualTo(Duration.ofMillis(300));
    assertThat(noJitter.delay(2, 0.9)).isEqualTo(Duration.ofMillis(900));
    assertThat(noJitter.delay(3, 0.9)).isEqualTo(Duration.ofSeconds(2));
    assertThat(noJitter.delay(1000, 0.9)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void jitterSpreadsEachDelayWithinItsFractionAndNeverPassesTheCap() {
    assertThat(backoff.delay(0, 0.0)).isEqualTo(Duration.ofMillis(50));
    assertThat(backoff.delay(0, 0.5)).isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.delay(0, 0.999999)).isEqualTo(Duration.ofMillis(150));
    assertThat(backoff.delay(2, 0.0)).isEqualTo(Duration.ofMillis(200));
    assertThat(backoff.delay(10, 0.0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.delay(10, 0.999999)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void defaultsAreSensible() {
    assertThat(Backoff.DEFAULT.delay(0, 0.5)).isEqualTo(Duration.ofMillis(500));
    assertThat(Backoff.DEFAULT.delay(30, 0.999)).isLessThanOrEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1.5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> backoff.delay(-1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
