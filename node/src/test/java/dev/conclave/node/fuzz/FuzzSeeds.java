package dev.conclave.node.fuzz;

/**
 * The seed every fuzz property generates from. The build runs with a fixed one, so a CI run is
 * reproducible and the inputs that pass today pass tomorrow; a new finding comes from a new seed.
 * To explore, run the suite with another value here (or jqwik's {@code seed} removed from a property:
 * random); a failure prints the seed and the shortest input that reproduces it.
 */
final class FuzzSeeds {

  static final String SEED = "20261123";

  private FuzzSeeds() {
  }
}
