package dev.conclave.agentruntime.gate;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The policy decisions users rely on: the default policy is safe, files say what they mean, errors name the field. */
class ToolPolicyTest {

  private static final Path WORK = Path.of("/srv/project");
  private final ToolPolicy defaults = ToolPolicy.defaults();

  @Test
  void theDefaultPolicyRunsReadOnlyToolsAndAsksBeforeWritingOrExecuting() {
    assertThat(defaults.mode()).isEqualTo(GateMode.ASK);
    assertThat(defaults.evaluate("Read", "{\"file_path\":\"src/Main.java\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(defaults.evaluate("note_get", "{\"key\":\"k\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(defaults.evaluate("Write", "{\"file_path\":\"src/New.java\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
    assertThat(defaults.evaluate("Bash", "{\"command\":\"mvn test\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
    assertThat(defaults.evaluate("note_set", "{\"key\":\"k\",\"value\":\"v\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
  }

  @Test
  void theDefaultPolicyDeniesRmRfSudoAndPathsOutsideTheWorkingDirectory() {
    Verdict rm = defaults.evaluate("Bash", "{\"command\":\"rm -rf build\"}", WORK);
    assertThat(rm.action()).isEqualTo(Verdict.Action.DENY);
    assertThat(rm.reason()).contains("rm -rf");
    assertThat(defaults.evaluate("Bash", "{\"command\":\"rm -fr build\"}", WORK).action()).isEqualTo(Verdict.Action.DENY);
    assertThat(defaults.evaluate("Bash", "{\"command\":\"sudo apt-get install x\"}", WORK).action()).isEqualTo(Verdict.Action.DENY);
    Verdict outside = defaults.evaluate("Read", "{\"file_path\":\"/etc/passwd\"}", WORK);
    assertThat(outside.action()).as("even a read-only tool").isEqualTo(Verdict.Action.DENY);
    assertThat(outside.reason()).contains("outside the working directory");
    assertThat(defaults.evaluate("Read", "{\"file_path\":\"../other/secret\"}", WORK).action()).isEqualTo(Verdict.Action.DENY);
    assertThat(defaults.evaluate("Bash", "{\"command\":\"cat ~/.ssh/id_rsa\"}", WORK).action()).isEqualTo(Verdict.Action.DENY);
    // inside the working directory, by absolute path, is fine; a URL is not a path
    assertThat(defaults.evaluate("Read", "{\"file_path\":\"/srv/project/README.md\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(defaults.evaluate("WebFetch", "{\"url\":\"https://example.org/a/b\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(defaults.evaluate("Bash", "{\"command\":\"rm build/a.txt\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
  }

  @Test
  void planModeRunsOnlyReadOnlyToolsAndAutoModeRunsTheRest() {
    ToolPolicy plan = defaults.withMode(GateMode.PLAN);
    assertThat(plan.evaluate("Grep", "{\"pattern\":\"x\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    Verdict write = plan.evaluate("Edit", "{\"file_path\":\"a.txt\"}", WORK);
    assertThat(write.action()).isEqualTo(Verdict.Action.DENY);
    assertThat(write.reason()).contains("plan mode");
    ToolPolicy auto = defaults.withMode(GateMode.AUTO);
    assertThat(auto.evaluate("Bash", "{\"command\":\"mvn test\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(auto.evaluate("Bash", "{\"command\":\"rm -rf /\"}", WORK).action()).as("deny rules hold in every mode")
      .isEqualTo(Verdict.Action.DENY);
  }

  @Test
  void allowAndAskRulesByNameAndArgumentsComeBeforeTheMode() {
    ToolPolicy p = ToolPolicy.parse("""
      {"mode": "ask",
       "deny":  [{"tool": "Bash", "args": "git\\\\s+push", "why": "pushing"}],
       "allow": [{"tool": "Bash", "args": "^\\\\{\\"command\\":\\"(mvn|git status)"}, {"tool": "note_*"}],
       "ask":   [{"tool": "Read", "args": "\\\\.env"}],
       "read_only": ["Read"]}""", "test");
    assertThat(p.evaluate("Bash", "{\"command\":\"mvn -q test\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(p.evaluate("Bash", "{\"command\":\"git push origin\"}", WORK).reason()).isEqualTo("denied by policy: pushing");
    assertThat(p.evaluate("Bash", "{\"command\":\"make\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
    assertThat(p.evaluate("note_set", "{}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
    assertThat(p.evaluate("Read", "{\"file_path\":\".env\"}", WORK).action()).isEqualTo(Verdict.Action.ASK);
    assertThat(p.evaluate("Read", "{\"file_path\":\"a.txt\"}", WORK).action()).isEqualTo(Verdict.Action.ALLOW);
  }

  @Test
  void aBadPolicyFileIsRefusedWithTheFieldNamed() {
    assertThatThrownBy(() -> ToolPolicy.parse("{\"mode\":\"yolo\"}", "p.json")).hasMessageContaining("mode must be auto, ask or plan");
    assertThatThrownBy(() -> ToolPolicy.parse("{\"deny\":[{\"tool\":\"Bash\",\"args\":\"(\"}]}", "p.json"))
      .hasMessageContaining("p.json: deny[0].args is not a valid regular expression");
    assertThatThrownBy(() -> ToolPolicy.parse("{\"allow\":[{\"name\":\"Bash\"}]}", "p.json"))
      .hasMessageContaining("unknown field 'name'");
    assertThatThrownBy(() -> ToolPolicy.parse("{\"alow\":[]}", "p.json")).hasMessageContaining("unknown field 'alow'");
    assertThatThrownBy(() -> ToolPolicy.parse("[]", "p.json")).hasMessageContaining("not a JSON object");
  }
}
