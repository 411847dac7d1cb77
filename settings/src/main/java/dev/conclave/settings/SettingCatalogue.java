package dev.conclave.settings;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A module's settings: the {@code public static final} {@link Setting} fields of its settings type, in
 * declaration order. Each module registers it one way: a nested {@code Catalogue} class of its settings
 * type ({@code GatewaySettings.Catalogue}, {@code NodeSettings.Catalogue} …) that returns
 * {@link #declaredIn declaredIn(TheSettings.class)}, listed in
 * {@code META-INF/services/dev.conclave.settings.SettingCatalogue}, so that the README test and the
 * undeclared-variable test see every module's settings.
 */
public interface SettingCatalogue {

  /** The settings this catalogue declares. */
  default List<Setting<?>> settings() {
    return declaredIn(getClass());
  }

  /**
   * The Markdown file, from the repository's root, whose settings table documents these settings:
   * the README's configuration table, unless a program documents its own (the agent program's are in
   * agent-runtime/README.md, with their flags).
   */
  default String documentedIn() {
    return "README.md";
  }

  /** The {@code public static final Setting} fields of {@code holder}, in declaration order. */
  static List<Setting<?>> declaredIn(Class<?> holder) {
    List<Setting<?>> settings = new ArrayList<>();
    for (Field f : holder.getDeclaredFields()) {
      int m = f.getModifiers();
      if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType() == Setting.class) {
        try {
          settings.add((Setting<?>) f.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return settings;
  }
}
