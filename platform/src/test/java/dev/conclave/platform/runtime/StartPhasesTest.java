package dev.conclave.platform.runtime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StartPhasesTest {

  private static final long MS = 1_000_000;

  @Test
  void thePhasesAreContiguousAndAddUpToTheTotal() {
    StartPhases phases = StartPhases.begin(300, 0);
    phases.mark("setup", 10 * MS);
    phases.mark("postgres", 430 * MS);
    phases.mark("migrations", 610 * MS);
    phases.mark("cluster", 640 * MS);
    phases.mark("auth", 760 * MS);
    phases.mark("roles", 1150 * MS);
    phases.mark("listen", 1190 * MS);

    assertThat(phases.describe())
      .isEqualTo("took=1490ms (jvm 300, setup 10, postgres 420, migrations 180, cluster 30, auth 120, roles 390, listen 40)");
  }

  @Test
  void aPhaseANodeSkipsShowsZeroAndAPhaseMarkedTwiceAddsUp() {
    StartPhases phases = StartPhases.begin(0, 0);
    phases.mark("setup", 5 * MS);
    phases.mark("migrations", 25 * MS);
    phases.mark("migrations", 30 * MS);

    assertThat(phases.millis("postgres")).isZero();
    assertThat(phases.millis("migrations")).isEqualTo(25);
    assertThat(phases.describe()).startsWith("took=30ms (jvm 0, setup 5, postgres 0, migrations 25, cluster 0,");
  }

  @Test
  void onlyTheNamedPhasesExist() {
    assertThatThrownBy(() -> StartPhases.begin(0, 0).mark("coffee", 1)).isInstanceOf(IllegalArgumentException.class);
  }
}
