package dev.conclave.e2e.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code deploy/Dockerfile} against what the build needs, without a Docker engine: the Maven stage
 * has the Node.js (pinned) that the modules it builds run, the image takes the jar the build makes
 * from where the build puts it, the image's user is the UID and GID the Kubernetes manifests run it
 * as, and the build context leaves out local data. The image could not be built before: its build
 * stage had no Node.js for the console's {@code npm ci}.
 */
class DockerfileTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOCKERFILE = ROOT.resolve("deploy/Dockerfile");
  private static final Pattern EXACT_VERSION = Pattern.compile("^(\\d+)\\.\\d+\\.\\d+(?:-.*)?$");
  private static final Pattern ENGINES_NODE = Pattern.compile("\"engines\"\\s*:\\s*\\{\\s*\"node\"\\s*:\\s*\">=(\\d+)\"");

  private static Dockerfile dockerfile() throws IOException {
    return Dockerfile.read(DOCKERFILE);
  }

  /** The stage that runs the Maven build, and the index of that RUN. */
  private static Map.Entry<Dockerfile.Stage, Integer> mavenBuild(Dockerfile file) {
    List<Map.Entry<Dockerfile.Stage, Integer>> found = new ArrayList<>();
    for (Dockerfile.Stage s : file.stages()) {
      for (int i = 0; i < s.instructions().size(); i++) {
        Dockerfile.Instruction in = s.instructions().get(i);
        if (in.keyword().equals("RUN") && in.args().matches(".*\\bmvn\\b.*\\bpackage\\b.*")) {
          found.add(Map.entry(s, i));
        }
      }
    }
    assertThat(found).as("one RUN of 'mvn … package'").hasSize(1);
    return found.get(0);
  }

  /** The reactor modules 'mvn -pl A,B [-am]' builds. */
  static Set<String> modulesBuilt(String mvn) throws IOException {
    List<String> words = Arrays.asList(mvn.split("\\s+"));
    int pl = Math.max(words.indexOf("-pl"), words.indexOf("--projects"));
    assertThat(pl).as("the build names its modules with -pl: " + mvn).isNotNegative();
    Set<String> modules = new LinkedHashSet<>(Arrays.asList(words.get(pl + 1).split(",")));
    if (words.contains("-am") || words.contains("--also-make")) {
      Deque<String> todo = new ArrayDeque<>(modules);
      while (!todo.isEmpty()) {
        for (String dep : reactorDependencies(todo.pop())) {
          if (modules.add(dep)) {
            todo.push(dep);
          }
        }
      }
    }
    return modules;
  }

  private static List<String> reactorDependencies(String module) throws IOException {
    String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"), StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    Matcher dep = Pattern.compile("<dependency>\\s*(?:<!--.*?-->\\s*)?<groupId>dev\\.conclave</groupId>\\s*<artifactId>([^<]+)</artifactId>",
      Pattern.DOTALL).matcher(pom);
    while (dep.find()) {
      assertThat(ROOT.resolve(dep.group(1)).resolve("pom.xml")).as("module directory of " + dep.group(1)).exists();
      out.add(dep.group(1));
    }
    return out;
  }

  /** Modules whose build runs Node.js or npm (the exec plugin's executable). */
  private static Set<String> needNode(Set<String> modules) throws IOException {
    Set<String> out = new LinkedHashSet<>();
    for (String m : modules) {
      String pom = Files.readString(ROOT.resolve(m).resolve("pom.xml"), StandardCharsets.UTF_8);
      if (pom.contains("<executable>npm</executable>") || pom.contains("<executable>node</executable>")) {
        out.add(m);
      }
    }
    return out;
  }

  private static int consoleNodeMajor() throws IOException {
    Matcher engines = ENGINES_NODE.matcher(Files.readString(ROOT.resolve("console/package.json"), StandardCharsets.UTF_8));
    assertThat(engines.find()).as("console/package.json declares engines.node as \">=N\"").isTrue();
    return Integer.parseInt(engines.group(1));
  }

  @Test
  void theMavenStageHasThePinnedNodeJsTheModulesItBuildsRun() throws IOException {
    Dockerfile file = dockerfile();
    Map.Entry<Dockerfile.Stage, Integer> build = mavenBuild(file);
    Dockerfile.Stage stage = build.getKey();
    Set<String> modules = modulesBuilt(stage.instructions().get(build.getValue()).args());
    assertThat(modules).as("the image's build").contains("node", "console");
    Set<String> needNode = needNode(modules);
    assertThat(needNode).as("modules whose build runs node or npm").contains("console");

    // Node.js comes from the official image: the stage starts from it, or copies node and npm from a stage that does
    Dockerfile.Stage nodeImage = stage;
    if (!stage.imageRepository().equals("node")) {
      List<String> copied = new ArrayList<>();
      String from = null;
      for (Dockerfile.Instruction in : stage.instructions().subList(0, build.getValue())) {
        Matcher copy = Pattern.compile("^--from=(\\S+)\\s+(\\S+)\\s+(\\S+)$").matcher(in.args());
        if (in.keyword().equals("COPY") && copy.matches()) {
          copied.add(copy.group(2));
          if (copy.group(2).equals("/usr/local/bin/node")) {
            from = copy.group(1);
          }
        }
      }
      assertThat(copied).as("what the Maven stage copies before the build: node and npm")
        .contains("/usr/local/bin/node", "/usr/local/lib/node_modules/npm");
      String source = from;
      nodeImage = file.stage(source).orElseGet(() -> new Dockerfile.Stage(source, "", List.of()));
      String runs = String.join("\n", stage.args("RUN"));
      assertThat(runs).as("npm on the PATH of the Maven stage").contains("/usr/local/bin/npm");
    }
    assertThat(nodeImage.imageRepository()).as("the Node.js image").isEqualTo("node");
    Matcher version = EXACT_VERSION.matcher(nodeImage.imageTag());
    assertThat(version.matches()).as("Node.js pinned to an exact version: " + nodeImage.image()).isTrue();
    assertThat(Integer.parseInt(version.group(1))).as("Node.js major version (console/package.json engines)")
      .isGreaterThanOrEqualTo(consoleNodeMajor());
  }

  @Test
  void theImageTakesTheJarFromWhereTheBuildPutsIt() throws IOException {
    Dockerfile file = dockerfile();
    Map.Entry<Dockerfile.Stage, Integer> build = mavenBuild(file);
    Matcher finalName = Pattern.compile("<finalName>([^<]+)</finalName>")
      .matcher(Files.readString(ROOT.resolve("node/pom.xml"), StandardCharsets.UTF_8));
    assertThat(finalName.find()).as("node/pom.xml names the fat jar").isTrue();
    String jar = Path.of(build.getKey().workdirAt(build.getValue())).resolve("node/target/" + finalName.group(1) + ".jar").toString();

    Dockerfile.Stage image = file.image();
    assertThat(image).isNotSameAs(build.getKey());
    List<String> copies = image.args("COPY").stream().filter(a -> a.startsWith("--from=" + build.getKey().name() + " ")).toList();
    assertThat(copies).as("the image copies from the build stage").hasSize(1);
    String[] copy = copies.get(0).split("\\s+");
    assertThat(copy[1]).as("the jar the build makes").isEqualTo(jar);
    assertThat(image.args("ENTRYPOINT")).singleElement().asString().contains("\"" + copy[2] + "\"");
  }

  @Test
  void theImageListensOnItsNetworkNotLoopback() throws IOException {
    // the node's default is 127.0.0.1 (a laptop's node stays off the LAN); a container must serve its network
    assertThat(dockerfile().image().args("ENV")).as("the image's ENV lines").contains("CONCLAVE_BIND_HOST=0.0.0.0");
  }

  static List<String> overlays() throws IOException {
    return K8sManifestsTest.overlays().toList();
  }

  @ParameterizedTest
  @MethodSource("overlays")
  void theImageRunsAsTheUserAndGroupTheManifestsRunAs(String overlay) throws IOException {
    Dockerfile.Stage image = dockerfile().image();
    assertThat(image.args("USER")).as("the image's USER").hasSize(1);
    Matcher user = Pattern.compile("^(\\d+):(\\d+)$").matcher(image.args("USER").get(0).strip());
    assertThat(user.matches()).as("USER is numeric UID:GID, so the kubelet can check runAsNonRoot: " + image.args("USER")).isTrue();
    long uid = Long.parseLong(user.group(1));
    long gid = Long.parseLong(user.group(2));
    assertThat(uid).isPositive();
    String runs = String.join("\n", image.args("RUN"));
    assertThat(runs).as("the image creates its user with that UID and group").containsPattern("useradd .*--uid " + uid + "\\b")
      .containsPattern("groupadd .*--gid " + gid + "\\b").containsPattern("useradd .*--gid " + gid + "\\b");

    Map<String, PodSecurityContext> contexts = new LinkedHashMap<>();
    for (Map<String, Object> doc : Kustomize.build(ROOT.resolve("k8s/overlays").resolve(overlay))) {
      HasMetadata o = K8sManifestsTest.parse(doc);
      if (o instanceof Deployment d && d.getSpec().getTemplate().getMetadata().getLabels().containsKey("conclave.dev/role")) {
        contexts.put(d.getMetadata().getName(), d.getSpec().getTemplate().getSpec().getSecurityContext());
      }
    }
    assertThat(contexts).as(overlay + ": Conclave Deployments").isNotEmpty();
    contexts.forEach((name, psc) -> {
      assertThat(psc).as(name + " securityContext").isNotNull();
      assertThat(psc.getRunAsUser()).as(overlay + " " + name + " runAsUser").isEqualTo(uid);
      assertThat(psc.getRunAsGroup()).as(overlay + " " + name + " runAsGroup").isEqualTo(gid);
      assertThat(psc.getFsGroup()).as(overlay + " " + name + " fsGroup").isEqualTo(gid);
    });
  }

  /** 'COPY . .' takes the repository: not the local data dirs (tokens, keys, a PostgreSQL cluster) nor build output. */
  @Test
  void theBuildContextLeavesOutLocalDataAndBuildOutput() throws IOException {
    Path ignore = ROOT.resolve("deploy/Dockerfile.dockerignore");
    assertThat(ignore).as("the ignore file BuildKit reads for deploy/Dockerfile").exists();
    Set<String> patterns = new LinkedHashSet<>();
    for (String line : Files.readAllLines(ignore, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && !line.startsWith("#")) {
        patterns.add(line.strip());
      }
    }
    assertThat(patterns).contains(".git", "data", ".cluster", "**/target", "**/node_modules");
  }

  /** The README and the console's README ask for the Node.js the console declares (and the image pins at least). */
  @Test
  void theDocsAskForTheNodeJsTheBuildDeclares() throws IOException {
    int major = consoleNodeMajor();
    for (Path doc : List.of(ROOT.resolve("README.md"), ROOT.resolve("console/README.md"))) {
      Matcher asked = Pattern.compile("Node\\.js (\\d+)\\+").matcher(Files.readString(doc, StandardCharsets.UTF_8));
      List<Integer> versions = new ArrayList<>();
      while (asked.find()) {
        versions.add(Integer.parseInt(asked.group(1)));
      }
      assertThat(versions).as(ROOT.relativize(doc) + ": the Node.js it asks for").isNotEmpty().containsOnly(major);
    }
  }
}
