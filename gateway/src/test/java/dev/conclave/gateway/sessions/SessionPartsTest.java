package dev.conclave.gateway.sessions;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An agent session's state has one owner: {@link AgentSession} holds its {@link SessionState} and
 * alone changes it. Its parts are made with the state's read-only {@link SessionView} and what they
 * report; none holds the session, or its state, to call back into or change.
 */
class SessionPartsTest {

  private static final List<Class<?>> PARTS = List.of(Dispatcher.class, EventWriter.class, EventDetails.class, SessionCommands.class,
    Liveness.class, PackToolCalls.class, AgentLink.class);

  private static final Set<Class<?>> OWNER = Set.of(AgentSession.class, SessionState.class);

  @Test
  void noPartHoldsTheSessionOrItsState() {
    List<String> found = new ArrayList<>();
    for (Class<?> part : PARTS) {
      for (Field f : part.getDeclaredFields()) {
        if (OWNER.contains(f.getType())) {
          found.add(part.getSimpleName() + "." + f.getName() + ": " + f.getType().getSimpleName());
        }
      }
      for (Constructor<?> c : part.getDeclaredConstructors()) {
        for (Class<?> p : c.getParameterTypes()) {
          if (OWNER.contains(p)) {
            found.add(part.getSimpleName() + "(" + p.getSimpleName() + ")");
          }
        }
      }
    }
    assertThat(found).as("parts that hold the session or its state").isEmpty();
  }

  @Test
  void theSessionKeepsNoMutableFieldOfItsOwn() {
    List<String> mutable = new ArrayList<>();
    for (Field f : AgentSession.class.getDeclaredFields()) {
      if (!java.lang.reflect.Modifier.isFinal(f.getModifiers()) && !f.isSynthetic()) {
        mutable.add(f.getName());
      }
    }
    assertThat(mutable).as("AgentSession's mutable fields (its state lives in SessionState)").isEmpty();
  }
}
