package dev.conclave.e2e.k8s;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Renders a kustomization the way {@code kustomize build} does, offline, for the subset of kustomize
 * that {@code k8s/} uses: {@code resources} (files and directories), {@code labels} (without
 * {@code includeSelectors}), {@code images}, {@code replicas}, {@code secretGenerator} (literals, with
 * {@code disableNameSuffixHash}) and {@code patches} in JSON 6902 form ({@code add}, {@code replace},
 * {@code remove}) with a target of kind and name, or of a kind alone (every resource of that kind), and
 * {@code replacements} ({@link KustomizeReplacements}).
 *
 * <p>Anything else in a kustomization fails the rendering: a manifest change that needs more of
 * kustomize must extend this class, so that what the tests check stays what {@code kubectl apply -k}
 * applies. Where kubectl is installed, {@code K8sManifestsTest} also compares this output with
 * {@code kubectl kustomize}'s.
 */
final class Kustomize {

  private static final Set<String> KNOWN_KEYS = Set.of(
      "apiVersion", "kind", "resources", "labels", "images", "replicas", "secretGenerator", "patches", "replacements");
  private static final Set<String> WORKLOAD_KINDS = Set.of("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet");

  private Kustomize() {
  }

  /** The documents {@code kustomize build dir} prints, in the order they were declared. */
  static List<Map<String, Object>> build(Path dir) {
    Map<String, Object> k = loadKustomization(dir);
    List<Map<String, Object>> out = new ArrayList<>();

    for (Object r : list(k, "resources")) {
      Path p = dir.resolve((String) r).normalize();
      if (Files.isDirectory(p)) {
        out.addAll(build(p));
      } else {
        out.addAll(loadAll(p));
      }
    }
    for (Object g : list(k, "secretGenerator")) {
      out.add(secret(castMap(g), dir));
    }
    for (Object p : list(k, "patches")) {
      patch(out, castMap(p));
    }
    for (Object l : list(k, "labels")) {
      labels(out, castMap(l));
    }
    for (Object r : list(k, "replicas")) {
      replicas(out, castMap(r));
    }
    for (Object i : list(k, "images")) {
      images(out, castMap(i));
    }
    // last, as kustomize does: a replacement sees the patched values
    KustomizeReplacements.apply(out, list(k, "replacements"), dir);

    Set<String> ids = new LinkedHashSet<>();
    for (Map<String, Object> doc : out) {
      String id = doc.get("kind") + "/" + name(doc);
      if (!ids.add(id)) {
        throw new IllegalStateException(dir + ": " + id + " is declared twice");
      }
    }
    return out;
  }

  static Map<String, Object> loadKustomization(Path dir) {
    Path file = dir.resolve("kustomization.yaml");
    List<Map<String, Object>> docs = loadAll(file);
    if (docs.size() != 1) {
      throw new IllegalStateException(file + ": expected one document");
    }
    Map<String, Object> k = docs.get(0);
    if (!"Kustomization".equals(k.get("kind"))) {
      throw new IllegalStateException(file + ": kind is not Kustomization");
    }
    for (String key : k.keySet()) {
      if (!KNOWN_KEYS.contains(key)) {
        throw new IllegalStateException(file + ": kustomize feature '" + key + "' is not rendered by this test");
      }
    }
    return k;
  }

  static List<Map<String, Object>> loadAll(Path file) {
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return loadAll(in);
    } catch (IOException e) {
      throw new IllegalStateException(file + ": " + e, e);
    }
  }

  static List<Map<String, Object>> loadAll(Reader in) {
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Object doc : yaml.loadAll(in)) {
      if (doc != null) {
        docs.add(castMap(doc));
      }
    }
    return docs;
  }

  private static Map<String, Object> secret(Map<String, Object> g, Path dir) {
    for (String key : g.keySet()) {
      if (!Set.of("name", "literals", "type", "options").contains(key)) {
        throw new IllegalStateException(dir + ": secretGenerator '" + key + "' is not rendered by this test");
      }
    }
    Map<String, Object> options = g.containsKey("options") ? castMap(g.get("options")) : Map.of();
    if (!Boolean.TRUE.equals(options.get("disableNameSuffixHash")) || options.size() != 1) {
      // the hash suffix renames the Secret and every reference to it; this test does not compute it
      throw new IllegalStateException(dir + ": secretGenerator needs options: {disableNameSuffixHash: true}");
    }
    Map<String, Object> data = new LinkedHashMap<>();
    for (Object lit : list(g, "literals")) {
      String s = (String) lit;
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IllegalStateException(dir + ": literal without key=value: " + s);
      }
      data.put(s.substring(0, eq),
          Base64.getEncoder().encodeToString(s.substring(eq + 1).getBytes(StandardCharsets.UTF_8)));
    }
    Map<String, Object> secret = new LinkedHashMap<>();
    secret.put("apiVersion", "v1");
    secret.put("kind", "Secret");
    secret.put("metadata", new LinkedHashMap<>(Map.of("name", g.get("name"))));
    secret.put("type", g.getOrDefault("type", "Opaque"));
    secret.put("data", data);
    return secret;
  }

  private static void patch(List<Map<String, Object>> docs, Map<String, Object> p) {
    if (!p.keySet().equals(Set.of("target", "patch"))) {
      throw new IllegalStateException("patches: only {target, patch} (inline JSON 6902) is rendered by this test: " + p);
    }
    Map<String, Object> target = castMap(p.get("target"));
    if (!Set.of("kind", "name").containsAll(target.keySet())) {
      throw new IllegalStateException("patches: target may only name kind and name: " + target);
    }
    Object ops = new Yaml(new SafeConstructor(new LoaderOptions())).load((String) p.get("patch"));
    if (!(ops instanceof List<?> opList)) {
      throw new IllegalStateException("patches: only JSON 6902 patches (a list of operations) are rendered by this test");
    }
    int matched = 0;
    for (Map<String, Object> doc : docs) {
      if (Objects.equals(target.get("kind"), doc.get("kind"))
          && (!target.containsKey("name") || Objects.equals(target.get("name"), name(doc)))) {
        matched++;
        for (Object op : opList) {
          Json6902.apply(doc, castMap(op));
        }
      }
    }
    if (matched == 0) {
      throw new IllegalStateException("patches: no resource matches " + target);
    }
  }

  private static void labels(List<Map<String, Object>> docs, Map<String, Object> l) {
    for (String key : l.keySet()) {
      if (!Set.of("pairs", "includeSelectors", "includeTemplates").contains(key)) {
        throw new IllegalStateException("labels: '" + key + "' is not rendered by this test");
      }
    }
    if (Boolean.TRUE.equals(l.get("includeSelectors"))) {
      throw new IllegalStateException("labels: includeSelectors: true is not rendered by this test");
    }
    Map<String, Object> pairs = castMap(l.get("pairs"));
    for (Map<String, Object> doc : docs) {
      child(child(doc, "metadata"), "labels").putAll(pairs);
      if (Boolean.TRUE.equals(l.get("includeTemplates")) && WORKLOAD_KINDS.contains(doc.get("kind"))) {
        child(child(child(child(doc, "spec"), "template"), "metadata"), "labels").putAll(pairs);
      }
    }
  }

  private static void replicas(List<Map<String, Object>> docs, Map<String, Object> r) {
    int matched = 0;
    for (Map<String, Object> doc : docs) {
      if (WORKLOAD_KINDS.contains(doc.get("kind")) && Objects.equals(r.get("name"), name(doc))) {
        child(doc, "spec").put("replicas", r.get("count"));
        matched++;
      }
    }
    if (matched == 0) {
      throw new IllegalStateException("replicas: no workload named " + r.get("name"));
    }
  }

  private static void images(List<Map<String, Object>> docs, Map<String, Object> i) {
    for (String key : i.keySet()) {
      if (!Set.of("name", "newName", "newTag").contains(key)) {
        throw new IllegalStateException("images: '" + key + "' is not rendered by this test");
      }
    }
    for (Map<String, Object> doc : docs) {
      if (!WORKLOAD_KINDS.contains(doc.get("kind"))) {
        continue;
      }
      Map<String, Object> podSpec = child(child(child(doc, "spec"), "template"), "spec");
      for (String field : List.of("containers", "initContainers")) {
        for (Object c : list(podSpec, field)) {
          Map<String, Object> container = castMap(c);
          String image = (String) container.get("image");
          String[] parts = splitImage(image);
          if (parts[0].equals(i.get("name"))) {
            String newName = (String) i.getOrDefault("newName", parts[0]);
            String newTag = i.containsKey("newTag") ? ":" + i.get("newTag") : parts[1];
            container.put("image", newName + newTag);
          }
        }
      }
    }
  }

  /** name and the rest (":tag", "@digest" or ""). */
  static String[] splitImage(String image) {
    int at = image.indexOf('@');
    if (at >= 0) {
      return new String[] {image.substring(0, at), image.substring(at)};
    }
    int colon = image.lastIndexOf(':');
    if (colon > image.lastIndexOf('/')) {
      return new String[] {image.substring(0, colon), image.substring(colon)};
    }
    return new String[] {image, ""};
  }

  static String name(Map<String, Object> doc) {
    return (String) child(doc, "metadata").get("name");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> castMap(Object o) {
    if (!(o instanceof Map)) {
      throw new IllegalStateException("expected a mapping, got " + o);
    }
    return (Map<String, Object>) o;
  }

  static List<Object> list(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List)) {
      throw new IllegalStateException(key + ": expected a list, got " + v);
    }
    @SuppressWarnings("unchecked")
    List<Object> l = (List<Object>) v;
    return l;
  }

  static Map<String, Object> child(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (v == null) {
      Map<String, Object> created = new LinkedHashMap<>();
      m.put(key, created);
      return created;
    }
    return castMap(v);
  }

  /** JSON Patch (RFC 6902) operations add, replace and remove, on YAML trees of maps and lists. */
  static final class Json6902 {

    private Json6902() {
    }

    static void apply(Map<String, Object> doc, Map<String, Object> op) {
      String kind = (String) op.get("op");
      String path = (String) op.get("path");
      if (path == null || !path.startsWith("/")) {
        throw new IllegalStateException("JSON patch: bad path " + path);
      }
      String[] tokens = path.substring(1).split("/", -1);
      Object parent = doc;
      for (int t = 0; t < tokens.length - 1; t++) {
        parent = get(parent, unescape(tokens[t]), path);
      }
      String last = unescape(tokens[tokens.length - 1]);
      switch (kind) {
        case "add" -> add(parent, last, op.get("value"), path);
        case "replace" -> {
          get(parent, last, path);
          remove(parent, last, path);
          add(parent, last, op.get("value"), path);
        }
        case "remove" -> remove(parent, last, path);
        default -> throw new IllegalStateException("JSON patch: op '" + kind + "' is not rendered by this test");
      }
    }

    private static String unescape(String token) {
      return token.replace("~1", "/").replace("~0", "~");
    }

    @SuppressWarnings("unchecked")
    private static Object get(Object parent, String token, String path) {
      Object v;
      if (parent instanceof Map<?, ?> m) {
        v = m.get(token);
      } else if (parent instanceof List<?> l) {
        int index = Integer.parseInt(token);
        v = index < l.size() ? l.get(index) : null;
      } else {
        v = null;
      }
      if (v == null) {
        throw new IllegalStateException("JSON patch: " + path + " does not exist");
      }
      return v;
    }

    @SuppressWarnings("unchecked")
    private static void add(Object parent, String token, Object value, String path) {
      if (parent instanceof Map<?, ?> m) {
        ((Map<String, Object>) m).put(token, value);
      } else if (parent instanceof List<?> l) {
        List<Object> list = (List<Object>) l;
        if (token.equals("-")) {
          list.add(value);
        } else {
          list.add(Integer.parseInt(token), value);
        }
      } else {
        throw new IllegalStateException("JSON patch: cannot add at " + path);
      }
    }

    private static void remove(Object parent, String token, String path) {
      if (parent instanceof Map<?, ?> m) {
        if (m.remove(token) == null) {
          throw new IllegalStateException("JSON patch: " + path + " does not exist");
        }
      } else if (parent instanceof List<?> l) {
        l.remove(Integer.parseInt(token));
      } else {
        throw new IllegalStateException("JSON patch: cannot remove at " + path);
      }
    }
  }
}
