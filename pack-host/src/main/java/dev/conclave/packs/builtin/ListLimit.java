package dev.conclave.packs.builtin;

/**
 * How many items a list tool returns: what the caller asked for ({@code requested}, unbounded for
 * tools without a {@code limit} field) and what it gets ({@code effective}, at most
 * {@link ToolInputs#MAX_LIST}). Stores are asked for {@link #fetch()} rows, one more than returned,
 * so the tool can tell whether the cap left matching items out.
 */
public record ListLimit(long requested, int effective) {

  /** For a tool without a limit field: everything, up to the cap. */
  public static final ListLimit UNBOUNDED = new ListLimit(Long.MAX_VALUE, ToolInputs.MAX_LIST);

  public ListLimit {
    if (effective < 1 || effective > ToolInputs.MAX_LIST || requested < effective) {
      throw new IllegalArgumentException("limit out of range: requested=" + requested + " effective=" + effective);
    }
  }

  /** A limit as given, where zero or less means the tool's default, capped at the maximum. */
  public static ListLimit of(long given, int defaultLimit) {
    long requested = given <= 0 ? defaultLimit : given;
    return new ListLimit(requested, (int) Math.min(requested, ToolInputs.MAX_LIST));
  }

  public int fetch() {
    return effective + 1;
  }

  /** Whether items the caller asked for were left out because of the cap. */
  public boolean capped(int rowsFetched) {
    return rowsFetched > effective && requested > effective;
  }
}
