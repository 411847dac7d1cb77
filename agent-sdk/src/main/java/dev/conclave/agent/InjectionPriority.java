package dev.conclave.agent;

/** How urgently injected context should be taken in. */
public enum InjectionPriority {
  UNSPECIFIED,
  /** Before the current turn ends. */
  IMMEDIATE,
  NORMAL,
  /** Once current work is done. */
  DEFERRED
}
