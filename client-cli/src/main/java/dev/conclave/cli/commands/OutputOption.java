package dev.conclave.cli.commands;

import dev.conclave.cli.output.Format;
import picocli.CommandLine.Option;

/** {@code -o table|json|yaml} on every listing. */
public final class OutputOption {

  @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
    description = "table (default), json (the API's document and field names) or yaml.")
  Format format;
}
